import { isDeepStrictEqual } from 'node:util';
import type { ApiClient, ApiResponse, TestServer } from './test-server.js';

/** One rule a refused write breaks, as problem details carry it (`violations`). */
export interface ViolationBody {
  key: string | null;
  entryId: string | null;
  instancePath: string;
  keyword: string;
  message: string;
}

/** A service whose writes a webhook watches, to tell that a refused write sent nothing. */
export interface WatchedService {
  readonly serviceId: string;
  readonly webhookId: string;
}

/** Everything a write of the service can leave behind: entries of its versions, audit records, deliveries. */
async function traces(admin: ApiClient, watched: WatchedService, versionIds: readonly string[]) {
  const { serviceId, webhookId } = watched;
  const entries = await Promise.all(
    versionIds.map(async (v) => (await admin.get(`/api/configentries/${serviceId}/${v}`)).body),
  );
  const audit = (await admin.post('/api/auditlogs/search', { serviceId, pageSize: 500 })).body.entities.length;
  const deliveries = (await admin.get(`/api/services/${serviceId}/webhooks/${webhookId}/deliveries?pageSize=500`)).body
    .deliveries.length;
  return { entries, audit, deliveries };
}

/**
 * Runs a write that must be refused with 400 and `violations`, and checks that it left nothing:
 * the versions' entries, the audit log and the webhook's deliveries are as they were, and no change
 * reached the server's change hub (no stream event). Answers the refusal.
 */
export async function expectRefusedCleanly(
  server: TestServer,
  admin: ApiClient,
  watched: WatchedService,
  versionIds: readonly string[],
  write: () => Promise<ApiResponse>,
): Promise<ApiResponse<{ detail: string; violations: ViolationBody[] }>> {
  await server.flushChanges();
  const before = await traces(admin, watched, versionIds);
  const notices: unknown[] = [];
  const stops = versionIds.map((v) => server.internals.hub.subscribe(v, (n) => notices.push(n)));
  let res: ApiResponse<any>;
  try {
    res = await write();
    await server.flushChanges();
  } finally {
    for (const stop of stops) stop();
  }
  const body = res.body as { violations?: unknown };
  if (res.status !== 400 || !Array.isArray(body.violations) || body.violations.length === 0) {
    throw new Error(`expected 400 with violations, got ${res.status} ${res.text}`);
  }
  if (notices.length > 0) throw new Error(`a refused write published ${JSON.stringify(notices)}`);
  const after = await traces(admin, watched, versionIds);
  if (!isDeepStrictEqual(after, before)) {
    throw new Error(`a refused write left traces:\n${JSON.stringify(before)}\n${JSON.stringify(after)}`);
  }
  return res as ApiResponse<{ detail: string; violations: ViolationBody[] }>;
}
