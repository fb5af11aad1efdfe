import { useQuery } from '@tanstack/react-query';
import type { AuditPage, AuditRecord, Entry } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';

const PAGE_SIZE = 500;
const MAX_PAGES = 10;

/** The value an entry was created with, and whether its application registered it (its default). */
export interface FirstValue {
  readonly found: boolean;
  readonly value: string | null;
  /** Created by an application's registration (the SDK, an API key), not by a person. */
  readonly registered: boolean;
  readonly by: string | null;
}

/** Registrations are made by an application: through an API key, or without credentials (the SDK). */
function byApplication(record: AuditRecord): boolean {
  return record.userId === 'client-sdk' || (record.userId ?? '').startsWith('apikey:');
}

/**
 * The value an entry was created with, from the `Created` records of its version in the service's
 * audit log (the newest 5,000 of them).
 */
export function useFirstValue(serviceId: string, versionId: string, entry: Entry | undefined) {
  return useQuery({
    queryKey: ['services', serviceId, 'audit', 'created', entry?.id],
    enabled: entry !== undefined,
    staleTime: Infinity,
    queryFn: async (): Promise<FirstValue> => {
      let pageToken: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const result: AuditPage = await unwrap(
          api.POST('/api/auditlogs/search', {
            body: { serviceId, entityType: 'Entry', versionId, action: 'Created', pageSize: PAGE_SIZE, pageToken },
          }),
        );
        const created = result.entities.find((r) => r.entityId === entry?.id);
        if (created) {
          const after = created.changes.after as { rawValue?: string | null } | undefined;
          return {
            found: true,
            value: after?.rawValue ?? null,
            registered: byApplication(created),
            by: created.userName ?? created.userId,
          };
        }
        if (!result.nextPageToken) break;
        pageToken = result.nextPageToken;
      }
      return { found: false, value: null, registered: false, by: null };
    },
  });
}
