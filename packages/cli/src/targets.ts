import type { AuditPage, Entry, Service, Version } from '@realtime-config/protocol/rest';
import { CliError, EXIT } from './errors.js';
import { unwrap, type RestApi } from './rest.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every service (all pages of the search), optionally only those whose name contains `name`. */
export async function listServices(api: RestApi, name?: string): Promise<Service[]> {
  const services: Service[] = [];
  let pageToken: string | undefined;
  do {
    const page = await unwrap(
      api.POST('/api/services/search', { body: { name: name ?? null, pageSize: 100, pageToken: pageToken ?? null } }),
    );
    services.push(...page.entities);
    pageToken = page.nextPageToken || undefined;
  } while (pageToken);
  return services;
}

/** A service named by its id or its name (names are unique, compared without case). */
export async function resolveService(api: RestApi, nameOrId: string): Promise<Service> {
  if (UUID.test(nameOrId)) {
    return unwrap(api.GET('/api/services/{serviceId}', { params: { path: { serviceId: nameOrId.toLowerCase() } } }));
  }
  const wanted = nameOrId.toLowerCase();
  const found = (await listServices(api, nameOrId)).find((s) => s.name.toLowerCase() === wanted);
  if (!found) throw new CliError(`No service named "${nameOrId}".`, EXIT.notFound);
  return found;
}

export function listVersions(api: RestApi, serviceId: string): Promise<Version[]> {
  return unwrap(api.GET('/api/configversions/{serviceId}', { params: { path: { serviceId } } }));
}

/** A version of the service named by its id or its label. */
export async function resolveVersion(api: RestApi, service: Service, labelOrId: string): Promise<Version> {
  const versions = await listVersions(api, service.id);
  const found = UUID.test(labelOrId)
    ? versions.find((v) => v.id === labelOrId.toLowerCase())
    : versions.find((v) => v.versionLabel === labelOrId);
  if (!found) throw new CliError(`Service ${service.name} has no version "${labelOrId}".`, EXIT.notFound);
  return found;
}

export function listEntries(api: RestApi, service: Service, version: Version): Promise<Entry[]> {
  return unwrap(
    api.GET('/api/configentries/{serviceId}/{versionId}', {
      params: { path: { serviceId: service.id, versionId: version.id } },
    }),
  );
}

/** The entries of the given keys (compared without case, as configuration keys are); unknown keys fail. */
export function pickEntries(entries: readonly Entry[], keys: readonly string[]): Entry[] {
  const byKey = new Map(entries.map((e) => [e.key.toLowerCase(), e]));
  const missing = keys.filter((k) => !byKey.has(k.toLowerCase()));
  if (missing.length > 0) {
    throw new CliError(`No such key in this version: ${missing.join(', ')}.`, EXIT.notFound);
  }
  return keys.map((k) => byKey.get(k.toLowerCase()) as Entry);
}

/** The key of one side (before or after) of an entry's audit record. */
function keyOf(side: unknown): unknown {
  return typeof side === 'object' && side !== null && 'key' in side ? side.key : undefined;
}

/** How far back `entryIdOfKey` looks for a deleted key: audit pages of 500 records. */
const AUDIT_PAGES_SEARCHED = 20;

/** Whether the version's history knows the entry (an entry of another version answers 404). */
async function hasHistoryIn(api: RestApi, service: Service, version: Version, entryId: string): Promise<boolean> {
  try {
    await unwrap(
      api.GET('/api/configentries/{serviceId}/{versionId}/{entryId}/history', {
        params: { path: { serviceId: service.id, versionId: version.id, entryId }, query: { pageSize: '1' } },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof CliError && error.exitCode === EXIT.notFound) return false;
    throw error;
  }
}

/**
 * The id of the entry that has (or had) this key in the version. A key deleted since is found in
 * the service's audit log, newest record first: the first of its entry ids the version's history
 * knows is the one.
 */
export async function entryIdOfKey(api: RestApi, service: Service, version: Version, key: string): Promise<string> {
  const wanted = key.toLowerCase();
  const current = (await listEntries(api, service, version)).find((e) => e.key.toLowerCase() === wanted);
  if (current) return current.id;
  const tried = new Set<string>();
  let pageToken: string | null = null;
  let searchedAll = false;
  for (let page = 0; page < AUDIT_PAGES_SEARCHED; page++) {
    const found: AuditPage = await unwrap(
      api.POST('/api/auditlogs/search', {
        body: { serviceId: service.id, entityType: 'Entry', pageSize: 500, pageToken },
      }),
    );
    for (const record of found.entities) {
      const keys = [keyOf(record.changes.before), keyOf(record.changes.after)];
      if (tried.has(record.entityId) || !keys.some((k) => typeof k === 'string' && k.toLowerCase() === wanted))
        continue;
      tried.add(record.entityId);
      if (await hasHistoryIn(api, service, version, record.entityId)) return record.entityId;
    }
    if (!found.nextPageToken) {
      searchedAll = true;
      break;
    }
    pageToken = found.nextPageToken;
  }
  const scope = searchedAll
    ? 'now or in its history'
    : `now or in the newest ${AUDIT_PAGES_SEARCHED * 500} changes of the service`;
  throw new CliError(`No key ${key} in ${service.name} ${version.versionLabel}, ${scope}.`, EXIT.notFound);
}
