import {
  ActionIcon,
  AppShell,
  Box,
  Button,
  Center,
  Group,
  Loader,
  Stack,
  Text,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { AnchorLink } from '../components/anchor-link';
import { Outlet } from '@tanstack/react-router';
import { ProblemAlert } from '../components/problem-alert';
import { ReadOnlyBanner } from './read-only-banner';
import { abilitiesOf, useMe, useSignOut } from '../screens/sign-in/use-session';

function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light');
  const next = computed === 'dark' ? 'light' : 'dark';
  return (
    <Tooltip label={`Switch to ${next} mode`}>
      <ActionIcon
        variant="default"
        size="lg"
        aria-label={`Switch to ${next} mode`}
        onClick={() => setColorScheme(next)}
      >
        <span aria-hidden="true">{computed === 'dark' ? '☀' : '☾'}</span>
      </ActionIcon>
    </Tooltip>
  );
}

const HEADER_WIDE = 60;
const HEADER_NARROW = 96;

const navLinkProps = {
  activeProps: { 'aria-current': 'page' as const, style: { fontWeight: 700, textDecoration: 'underline' } },
};

/** The frame of every signed-in screen: navigation, the user, sign-out and the colour scheme. */
export function AppLayout() {
  const me = useMe();
  const signOut = useSignOut();

  if (me.isPending) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (me.isError) return <ProblemAlert error={me.error} m="xl" />;
  // Signed out (or told to change the password) meanwhile: the route's beforeLoad sends the user on.
  if (!me.data) return null;
  const user = me.data;
  const mustChangePassword = user.passwordChangeRequired;
  const abilities = abilitiesOf(user);

  const navigation = !mustChangePassword && (
    <nav aria-label="Main">
      <Group gap="md" wrap="nowrap">
        <AnchorLink to="/services" {...navLinkProps}>
          Services
        </AnchorLink>
        {abilities.canAll && abilities.isLocal && (
          <AnchorLink to="/users" {...navLinkProps}>
            Users
          </AnchorLink>
        )}
      </Group>
    </nav>
  );
  const account = !mustChangePassword ? (
    <AnchorLink to="/account" {...navLinkProps} maw={{ base: 160, sm: 240 }} lineClamp={1}>
      {user.name ?? user.id}
    </AnchorLink>
  ) : (
    <Text lineClamp={1}>{user.name ?? user.id}</Text>
  );

  // On a phone the header has two rows: the name and the buttons, then the navigation and the account.
  return (
    <AppShell header={{ height: { base: HEADER_NARROW, sm: HEADER_WIDE } }} padding="md">
      <AppShell.Header>
        <Stack h="100%" gap={0} justify="center" px="md">
          <Group h={HEADER_WIDE - 8} justify="space-between" wrap="nowrap" gap="sm">
            <Group gap="lg" wrap="nowrap" miw={0}>
              <Text fw={700} size="lg" style={{ whiteSpace: 'nowrap' }}>
                Realtime Config
              </Text>
              <Box visibleFrom="sm">{navigation}</Box>
            </Group>
            <Group gap="sm" wrap="nowrap">
              <Box visibleFrom="sm">{account}</Box>
              <ColorSchemeToggle />
              <Button variant="default" onClick={() => signOut.mutate(user.provider)} loading={signOut.isPending}>
                Sign out
              </Button>
            </Group>
          </Group>
          <Group hiddenFrom="sm" justify="space-between" wrap="nowrap" pb={8}>
            {navigation || <span />}
            {account}
          </Group>
        </Stack>
      </AppShell.Header>
      <AppShell.Main>
        <ReadOnlyBanner />
        {signOut.isError && <ProblemAlert error={signOut.error} mb="md" />}
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
