import { Alert } from '@mantine/core';
import { useInstanceRole } from '../screens/sign-in/use-session';

/**
 * Shown while the server is a follower of a PostgreSQL standby (docs/regions.md): everything shown
 * is served from the standby; changes and sign-ins go to the primary (or are refused without one).
 */
export function ReadOnlyBanner() {
  const instance = useInstanceRole().data;
  if (instance?.role !== 'follower') return null;
  return (
    <Alert role="status" color="yellow" variant="light" py={6} radius={0}>
      {instance.primaryUrl ? `Read-only: follower of ${instance.primaryUrl}` : 'Read-only: follower'}
    </Alert>
  );
}
