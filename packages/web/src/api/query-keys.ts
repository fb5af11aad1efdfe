/**
 * Every TanStack Query key of the console, from one factory: invalidating a prefix (a service) reaches
 * everything below it (its versions, entries, members, keys and audit log).
 */
export const queryKeys = {
  me: ['me'] as const,
  authConfig: ['auth-config'] as const,
  instanceRole: ['instance-role'] as const,
  users: ['users'] as const,
  /** Below `users`: a role or password change (which revokes a user's tokens) refreshes them too. */
  userTokens: (username: string) => ['users', username, 'tokens'] as const,
  services: {
    all: ['services'] as const,
    search: (name: string, pageToken: string | null) => ['services', 'search', { name, pageToken }] as const,
    detail: (serviceId: string) => ['services', serviceId] as const,
    members: (serviceId: string) => ['services', serviceId, 'members'] as const,
    apiKeys: (serviceId: string) => ['services', serviceId, 'api-keys'] as const,
    webhooks: (serviceId: string) => ['services', serviceId, 'webhooks'] as const,
    validators: (serviceId: string) => ['services', serviceId, 'validators'] as const,
    deliveries: (serviceId: string, webhookId: string) =>
      ['services', serviceId, 'webhooks', webhookId, 'deliveries'] as const,
    audit: (serviceId: string, filters: object) => ['services', serviceId, 'audit', filters] as const,
  },
  versions: {
    list: (serviceId: string) => ['services', serviceId, 'versions'] as const,
    detail: (serviceId: string, versionId: string) => ['services', serviceId, 'versions', versionId] as const,
    entries: (serviceId: string, versionId: string) =>
      ['services', serviceId, 'versions', versionId, 'entries'] as const,
    instances: (serviceId: string, versionId: string) =>
      ['services', serviceId, 'versions', versionId, 'instances'] as const,
    history: (serviceId: string, versionId: string, entryId: string) =>
      ['services', serviceId, 'versions', versionId, 'history', entryId] as const,
    changeRequests: (serviceId: string, versionId: string) =>
      ['services', serviceId, 'versions', versionId, 'change-requests'] as const,
    rollouts: (serviceId: string, versionId: string) =>
      ['services', serviceId, 'versions', versionId, 'rollouts'] as const,
  },
  tokens: ['tokens'] as const,
};
