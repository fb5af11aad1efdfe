import { Drawer, Stack, Text } from '@mantine/core';
import { useNarrow } from '../../components/use-narrow';
import { TokenTable } from '../account/token-table';
import { useRevokeUserToken, useUserTokens } from './use-users';

function UserTokens({ username }: { username: string }) {
  const tokens = useUserTokens(username);
  const revoke = useRevokeUserToken(username);
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        Revoke a token that leaked or is no longer needed: calls with it are refused at once, open streams end within
        seconds. Only its owner makes tokens.
      </Text>
      <TokenTable list={tokens} revoke={revoke} empty={`${username} has no tokens.`} />
    </Stack>
  );
}

/** An admin's view of a user's personal access tokens: each listed, a live one revoked after asking. */
export function UserTokensDrawer({ username, onClose }: { username: string | null; onClose: () => void }) {
  const narrow = useNarrow();
  return (
    <Drawer
      opened={username !== null}
      onClose={onClose}
      position="right"
      size={narrow ? '100%' : 'lg'}
      title={`Personal access tokens of ${username ?? ''}`}
    >
      {username !== null && <UserTokens username={username} />}
    </Drawer>
  );
}
