/**
 * @realtime-config/protocol/rest: the management REST API's types, for the CLI and the console.
 *
 * `paths` is generated from the server's OpenAPI document (gen/api.ts, `npm run generate`); every
 * named type below is derived from it, so a changed route changes these types and fails the
 * typecheck of every caller. Types only: an `openapi-fetch` client typed by `paths` does the calls.
 */
import type { components, paths } from './gen/api.js';

export type { components, paths };

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Operation<P extends keyof paths, M extends keyof paths[P]> = NonNullable<paths[P][M]>;

/** The JSON of a route's success answer (200 or 201). */
export type Ok<P extends keyof paths, M extends keyof paths[P]> =
  Operation<P, M> extends { responses: infer R } ? Json<R[200 & keyof R]> | Json<R[201 & keyof R]> : never;

/** The JSON body a route takes. */
export type Body<P extends keyof paths, M extends keyof paths[P]> =
  Operation<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;

/** The query parameters a route takes. */
export type Query<P extends keyof paths, M extends keyof paths[P]> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** RFC 9457 problem details: every failure of the REST API. */
export type ProblemDetails = components['schemas']['ProblemDetails'];

export type Me = Ok<'/auth/me', 'get'>;
export type AuthConfig = Ok<'/auth/config', 'get'>;
export type Credentials = Body<'/auth/login', 'post'>;
export type PasswordChange = Body<'/api/users/me/password', 'put'>;

export type User = Ok<'/api/users/{username}', 'get'>;
export type NewUser = Body<'/api/users', 'post'>;
export type UserChange = Body<'/api/users/{username}', 'put'>;
export type Role = NewUser['role'];

export type Service = Ok<'/api/services/{serviceId}', 'get'>;
export type ServicePage = Ok<'/api/services/search', 'post'>;
export type ServiceSearch = Body<'/api/services/search', 'post'>;
/** What a service is created or changed with. */
export type ServiceFields = Body<'/api/services', 'post'>;
export type Member = Ok<'/api/services/{serviceId}/members', 'post'>;
export type ApiKey = Ok<'/api/services/{serviceId}/apikeys', 'get'>[number];
export type CreatedApiKey = Ok<'/api/services/{serviceId}/apikeys', 'post'>;
export type ApiKeyScope = ApiKey['scopes'][number];
/** A member's role in one service: viewer, editor or owner. */
export type ServiceRole = Member['role'];

export type PersonalToken = Ok<'/api/auth/tokens', 'get'>[number];
export type CreatedPersonalToken = Ok<'/api/auth/tokens', 'post'>;
export type Webhook = Ok<'/api/services/{serviceId}/webhooks/{webhookId}', 'get'>;
export type NewWebhook = Body<'/api/services/{serviceId}/webhooks', 'post'>;
export type CreatedWebhook = Ok<'/api/services/{serviceId}/webhooks', 'post'>;
export type WebhookDelivery = Ok<
  '/api/services/{serviceId}/webhooks/{webhookId}/deliveries',
  'get'
>['deliveries'][number];
export type Validator = Ok<'/api/services/{serviceId}/validators/{validatorId}', 'get'>;
export type NewValidator = Body<'/api/services/{serviceId}/validators', 'post'>;
export type CreatedValidator = Ok<'/api/services/{serviceId}/validators', 'post'>;
/** What a validator is changed with: its URL, description or whether it is asked (`enabled`). */
export type ValidatorChange = Body<'/api/services/{serviceId}/validators/{validatorId}', 'put'>;

export type Version = Ok<'/api/configversions/{serviceId}/{versionId}', 'get'>;
/** What a version is created or changed with. */
export type VersionFields = Body<'/api/configversions/{serviceId}', 'post'>;

export type Entry = Ok<'/api/configentries/{serviceId}/{versionId}/{entryId}', 'put'>;
export type NewEntry = Body<'/api/configentries/{serviceId}/{versionId}', 'post'>;
/** An entry's changed metadata (and value), with the generation it was read at. */
export type EntryMetadata = Body<'/api/configentries/{serviceId}/{versionId}/{entryId}', 'put'>;
/** One value of a batch set, with the generation it was read at. */
export type ValueSet = Body<'/api/configentries/{serviceId}/{versionId}/set', 'put'>[number];
export type HistoryPage = Ok<'/api/configentries/{serviceId}/{versionId}/{entryId}/history', 'get'>;
export type HistoryItem = HistoryPage['entities'][number];

export type ChangeRequest = Ok<'/api/configversions/{serviceId}/{versionId}/changerequests/{changeRequestId}', 'get'>;
export type ChangeRequestStatus = ChangeRequest['status'];
/** What a change request is opened (or edited) with: a title, a description and value sets. */
export type ChangeRequestFields = Body<'/api/configversions/{serviceId}/{versionId}/changerequests', 'post'>;

/** A version's rollout (docs/rollouts.md): new values reaching a growing share of the instances. */
export type Rollout = Ok<'/api/configversions/{serviceId}/{versionId}/rollouts/{rolloutId}', 'get'>;
export type RolloutStatus = Rollout['status'];
/** What a rollout is started with: the values (each with its generation), its steps, times and rules. */
export type NewRollout = Body<'/api/configversions/{serviceId}/{versionId}/rollouts', 'post'>;
/** A rollout's steps, times and rules without its values: how an approved change request is applied as one. */
export type RolloutSettings = NonNullable<
  Body<'/api/configversions/{serviceId}/{versionId}/changerequests/{changeRequestId}/apply', 'post'>['rollout']
>;

export type AuditSearch = Body<'/api/auditlogs/search', 'post'>;
export type AuditPage = Ok<'/api/auditlogs/search', 'post'>;
export type AuditRecord = AuditPage['entities'][number];

/** What a restore or an import changes (a dry run) or changed. */
export type PlanOutcome = Ok<'/api/configentries/{serviceId}/{versionId}/restore', 'post'>;
export type RestoreRequest = Body<'/api/configentries/{serviceId}/{versionId}/restore', 'post'>;
/** The JSON import body that copies values from another version (the rest of the JSON bodies are files). */
export type PromoteRequest = Extract<
  Body<'/api/configversions/{serviceId}/{versionId}/import', 'post'>,
  { fromVersionId: unknown }
>;
export type ConfigFileFormat = NonNullable<
  Query<'/api/configversions/{serviceId}/{versionId}/export', 'get'>['format']
>;
export type VersionComparison = Ok<'/api/configversions/{serviceId}/compare', 'get'>;
export type Difference = VersionComparison['differences'][number];
