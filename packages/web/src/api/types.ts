import type { paths } from '../gen/api';

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? JsonOf<R[200 & keyof R]> | JsonOf<R[201 & keyof R]>
  : never;

export type Me = Ok<'/auth/me', 'get'>;
export type AuthConfig = Ok<'/auth/config', 'get'>;
export type Service = Ok<'/api/services/{serviceId}', 'get'>;
export type ServicePage = Ok<'/api/services/search', 'post'>;
export type Member = Ok<'/api/services/{serviceId}/members', 'post'>;
export type Version = Ok<'/api/configversions/{serviceId}/{versionId}', 'get'>;
export type Entry = Ok<'/api/configentries/{serviceId}/{versionId}/{entryId}', 'put'>;
export type AuditPage = Ok<'/api/auditlogs/search', 'post'>;
export type AuditRecord = AuditPage['entities'][number];
export type ApiKey = Ok<'/api/services/{serviceId}/apikeys', 'get'>[number];
export type CreatedApiKey = Ok<'/api/services/{serviceId}/apikeys', 'post'>;
export type User = Ok<'/api/users/{username}', 'get'>;

export type ServiceFields = Pick<Service, 'name' | 'description' | 'repositoryUrl' | 'contactEmail'>;
export type PlanOutcome = Ok<'/api/configentries/{serviceId}/{versionId}/restore', 'post'>;
export type HistoryPage = Ok<'/api/configentries/{serviceId}/{versionId}/{entryId}/history', 'get'>;
export type HistoryItem = HistoryPage['entities'][number];
export type ConfigFileFormat = 'json' | 'yaml' | 'env';
export type VersionComparison = Ok<'/api/configversions/{serviceId}/compare', 'get'>;
