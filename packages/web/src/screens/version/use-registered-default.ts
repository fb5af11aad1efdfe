import { useQuery } from '@tanstack/react-query';
import type { AuditPage, Entry } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';

const PAGE_SIZE = 500;
const MAX_PAGES = 10;

/**
 * The value an entry was created with (the default its application registered), read from the
 * service's audit log: the entry's `Created` record. Looks through the newest 5,000 entry records.
 */
export function useRegisteredDefault(serviceId: string, entry: Entry | undefined) {
  return useQuery({
    queryKey: ['services', serviceId, 'audit', 'created', entry?.id],
    enabled: entry !== undefined,
    staleTime: Infinity,
    queryFn: async (): Promise<{ found: boolean; value: string | null }> => {
      let pageToken: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const result: AuditPage = await unwrap(
          api.POST('/api/auditlogs/search', {
            body: { serviceId, entityType: 'Entry', pageSize: PAGE_SIZE, pageToken },
          }),
        );
        const created = result.entities.find((r) => r.entityId === entry?.id && r.action === 'Created');
        if (created) {
          const after = created.changes.after as { rawValue?: string | null } | undefined;
          return { found: true, value: after?.rawValue ?? null };
        }
        if (!result.nextPageToken) break;
        pageToken = result.nextPageToken;
      }
      return { found: false, value: null };
    },
  });
}
