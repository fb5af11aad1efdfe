import {
  ActionIcon,
  AppShell,
  Button,
  Center,
  Group,
  Loader,
  Text,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { AnchorLink } from '../components/anchor-link';
import { Outlet } from '@tanstack/react-router';
import { ProblemAlert } from '../components/problem-alert';
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

  return (
    <AppShell header={{ height: 60 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="lg" wrap="nowrap">
            <Text fw={700} size="lg">
              Realtime Config
            </Text>
            {!mustChangePassword && (
              <nav aria-label="Main">
                <Group gap="md">
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
            )}
          </Group>
          <Group gap="sm" wrap="nowrap">
            {!mustChangePassword ? (
              <AnchorLink to="/account" {...navLinkProps}>
                {user.name ?? user.id}
              </AnchorLink>
            ) : (
              <Text>{user.name ?? user.id}</Text>
            )}
            <ColorSchemeToggle />
            <Button variant="default" onClick={() => signOut.mutate(user.provider)} loading={signOut.isPending}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        {signOut.isError && <ProblemAlert error={signOut.error} mb="md" />}
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
