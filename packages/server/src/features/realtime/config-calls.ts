import { create } from '@bufbuild/protobuf';
import {
  CreateVersionResponseSchema,
  IsVersionExistResponseSchema,
  type CreateVersionRequest,
  type CreateVersionResponse,
  type GetConfigRequest,
  type GetConfigResponse,
  type IsVersionExistRequest,
  type IsVersionExistResponse,
  type KonfigoGetConfigResponse,
  type StartSubscribeRequest,
} from '../../protocol.js';
import {
  actorOfCaller,
  receivesSecrets,
  requireServiceAccess,
  type Caller,
  type ServiceAction,
  type TargetedInstance,
  type UnitOfWork,
} from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import type { VersionRegistration } from '../versions/index.js';
import { bearerOf, sameCaller, type GrpcAuthorizer, type GrpcCredentials } from './grpc-authorizer.js';
import { parseSubscribeRequest, requireLabel, requireUuid, type ParsedSubscribeRequest } from './subscribe-request.js';
import type { StreamCredentials } from './subscriptions.js';
import type { VersionSnapshots } from './version-snapshots.js';

export interface ConfigCallDependencies {
  readonly uow: UnitOfWork;
  readonly snapshots: VersionSnapshots;
  readonly registration: VersionRegistration;
  /** Resolves each call's credentials (Grpc:RequireAuthentication) to its caller. */
  readonly authorizer: GrpcAuthorizer;
  /** False while the server waits for its database: calls answer UNAVAILABLE. */
  readonly isStarted: () => boolean;
  /**
   * Where CreateVersion goes while this instance is a follower (docs/regions.md): to the primary,
   * whose answer it is, or refused. Absent: every call is served here.
   */
  readonly forwarding?: {
    readonly active: boolean;
    createVersion(request: CreateVersionRequest, credentials: GrpcCredentials): Promise<CreateVersionResponse>;
  };
}

/** A StartSubscribe request checked and authorized, with the check its stream repeats while open. */
export interface AuthorizedSubscription extends ParsedSubscribeRequest {
  /**
   * The stream's credentials and how to check again that they still stand (an API key not revoked,
   * a session not ended, a membership not removed; the check throws UNAUTHENTICATED or
   * PERMISSION_DENIED when not). Null for an anonymous caller: nothing to revoke, and the stream
   * counts as one without credentials under the stream limits.
   */
  readonly credentials: StreamCredentials | null;
  /** The caller receives secret entries (an API key with the `secrets` scope, a canReveal user). */
  readonly withSecrets: boolean;
}

/**
 * What each RPC does, whatever carries it: the native HTTP/2 path and Connect-ES (gRPC-Web,
 * Connect) both call these. Requests are validated first, then authorized for the service they name
 * by the same rule the REST API applies (`requireServiceAccess`).
 */
/**
 * Whether secret entries go to this caller over gRPC: only to an API key with the `secrets` scope
 * or a token of a user who may reveal them. The console's session cookie never carries them: the
 * console shows secrets masked and reveals one at a time over REST (audited).
 */
function secretsReach(caller: Caller, credentials: GrpcCredentials): boolean {
  return bearerOf(credentials) !== undefined && receivesSecrets(caller);
}

export class ConfigCalls {
  constructor(private readonly deps: ConfigCallDependencies) {}

  private async authorize(credentials: GrpcCredentials, serviceId: string, action: ServiceAction): Promise<Caller> {
    const caller = await this.deps.authorizer.callerOf(credentials);
    await requireServiceAccess(this.deps.uow.read, caller, serviceId, action);
    return caller;
  }

  private requireStarted(): void {
    if (!this.deps.isStarted())
      throw new AppError('UNAVAILABLE', 'The server is starting: it is waiting for its database.');
  }

  private async authorizedLookup(request: GetConfigRequest | IsVersionExistRequest, credentials: GrpcCredentials) {
    this.requireStarted();
    requireUuid('service_id', request.serviceId);
    requireLabel(request.version);
    const caller = await this.authorize(credentials, request.serviceId, 'read');
    return {
      serviceId: request.serviceId.toLowerCase(),
      label: request.version,
      withSecrets: secretsReach(caller, credentials),
    };
  }

  /** The snapshot for the calling instance (`instance`: its x-rc-* metadata, docs/targeting.md). */
  async getConfig(
    request: GetConfigRequest,
    credentials: GrpcCredentials,
    instance?: TargetedInstance,
  ): Promise<GetConfigResponse> {
    const { serviceId, label, withSecrets } = await this.authorizedLookup(request, credentials);
    return this.deps.snapshots.getConfig(serviceId, label, withSecrets, instance);
  }

  /** GetConfig in the layout of the existing Konfigo SDKs (Grpc:GetConfigLayout = Konfigo). */
  async getKonfigoConfig(
    request: GetConfigRequest,
    credentials: GrpcCredentials,
    instance?: TargetedInstance,
  ): Promise<KonfigoGetConfigResponse> {
    const { serviceId, label, withSecrets } = await this.authorizedLookup(request, credentials);
    return this.deps.snapshots.getKonfigoConfig(serviceId, label, withSecrets, instance);
  }

  /** The GetConfig answer in the configured layout as a gRPC frame, encoded once per state of the version. */
  async getConfigFrame(
    request: GetConfigRequest,
    credentials: GrpcCredentials,
    instance?: TargetedInstance,
  ): Promise<Uint8Array> {
    const { serviceId, label, withSecrets } = await this.authorizedLookup(request, credentials);
    return this.deps.snapshots.getConfigFrame(serviceId, label, withSecrets, instance);
  }

  async isVersionExists(request: IsVersionExistRequest, credentials: GrpcCredentials): Promise<IsVersionExistResponse> {
    const { serviceId, label } = await this.authorizedLookup(request, credentials);
    const version = await this.deps.uow.read.versions.findByLabel(serviceId, label);
    return create(IsVersionExistResponseSchema, version ? { versionId: version.id } : {});
  }

  async createVersion(request: CreateVersionRequest, credentials: GrpcCredentials): Promise<CreateVersionResponse> {
    this.requireStarted();
    // Before anything is checked here: the primary decides on its own data, not the standby's.
    const { forwarding } = this.deps;
    if (forwarding?.active) return forwarding.createVersion(request, credentials);
    requireUuid('service_id', request.serviceId);
    const caller = await this.authorize(credentials, request.serviceId, 'register');
    const versionId = await this.deps.registration.register(
      actorOfCaller(caller),
      request.serviceId.toLowerCase(),
      request.version,
      request.classes.map((c) => ({
        name: c.name,
        description: c.description ?? null,
        entries: c.entries.map((e) => ({
          key: e.key,
          name: e.name,
          description: e.description ?? null,
          valueType: e.valueType,
          enumValues: e.enumValues ?? null,
          defaultValue: e.value ?? null,
          isSecret: e.isSecret,
          schema: e.schema ?? null,
        })),
      })),
    );
    return create(CreateVersionResponseSchema, { versionId });
  }

  /** A StartSubscribe request checked and authorized; the stream itself is the transport's. */
  async subscribeRequest(
    request: StartSubscribeRequest,
    credentials: GrpcCredentials,
  ): Promise<AuthorizedSubscription> {
    this.requireStarted();
    const parsed = parseSubscribeRequest(request);
    const caller = await this.authorize(credentials, parsed.serviceId, 'read');
    const withSecrets = secretsReach(caller, credentials);
    if (caller.kind === 'anonymous') return { ...parsed, credentials: null, withSecrets };
    const recheck = async (): Promise<void> => {
      const again = await this.deps.authorizer.callerOf(credentials);
      if (!sameCaller(caller, again)) {
        throw AppError.unauthenticated('The credentials of this stream were revoked or have expired.');
      }
      await requireServiceAccess(this.deps.uow.read, again, parsed.serviceId, 'read');
    };
    const key = [credentials.authorization ?? '', credentials.cookie ?? '', parsed.serviceId].join('\n');
    return { ...parsed, credentials: { key, recheck }, withSecrets };
  }
}
