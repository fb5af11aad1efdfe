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
} from '@realtime-config/protocol';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { AppError } from '../../platform/errors.js';
import type { VersionRegistration } from '../versions/index.js';
import type { GrpcAuthorizer, GrpcCredentials } from './grpc-authorizer.js';
import { parseSubscribeRequest, requireLabel, requireUuid, type ParsedSubscribeRequest } from './subscribe-request.js';
import type { VersionSnapshots } from './version-snapshots.js';

export interface ConfigCallDependencies {
  readonly uow: UnitOfWork;
  readonly snapshots: VersionSnapshots;
  readonly registration: VersionRegistration;
  /** Checks each call's credentials (Grpc:RequireAuthentication) and names its actor for the audit log. */
  readonly authorizer: GrpcAuthorizer;
  /** False while the server waits for its database: calls answer UNAVAILABLE. */
  readonly isStarted: () => boolean;
}

/**
 * What each RPC does, whatever carries it: the native HTTP/2 path and Connect-ES (gRPC-Web,
 * Connect) both call these. Requests are validated first, then authorized for the service they name.
 */
export class ConfigCalls {
  constructor(private readonly deps: ConfigCallDependencies) {}

  private requireStarted(): void {
    if (!this.deps.isStarted())
      throw new AppError('UNAVAILABLE', 'The server is starting: it is waiting for its database.');
  }

  private async authorizedLookup(request: GetConfigRequest | IsVersionExistRequest, credentials: GrpcCredentials) {
    this.requireStarted();
    requireUuid('service_id', request.serviceId);
    requireLabel(request.version);
    await this.deps.authorizer.authorize(credentials, request.serviceId);
    return { serviceId: request.serviceId.toLowerCase(), label: request.version };
  }

  async getConfig(request: GetConfigRequest, credentials: GrpcCredentials): Promise<GetConfigResponse> {
    const { serviceId, label } = await this.authorizedLookup(request, credentials);
    return this.deps.snapshots.getConfig(serviceId, label);
  }

  /** GetConfig in the layout of the existing Konfigo SDKs (Grpc:GetConfigLayout = Konfigo). */
  async getKonfigoConfig(request: GetConfigRequest, credentials: GrpcCredentials): Promise<KonfigoGetConfigResponse> {
    const { serviceId, label } = await this.authorizedLookup(request, credentials);
    return this.deps.snapshots.getKonfigoConfig(serviceId, label);
  }

  /** The GetConfig answer in the configured layout as a gRPC frame, encoded once per state of the version. */
  async getConfigFrame(request: GetConfigRequest, credentials: GrpcCredentials): Promise<Uint8Array> {
    const { serviceId, label } = await this.authorizedLookup(request, credentials);
    return this.deps.snapshots.getConfigFrame(serviceId, label);
  }

  async isVersionExists(request: IsVersionExistRequest, credentials: GrpcCredentials): Promise<IsVersionExistResponse> {
    const { serviceId, label } = await this.authorizedLookup(request, credentials);
    const version = await this.deps.uow.read.versions.findByLabel(serviceId, label);
    return create(IsVersionExistResponseSchema, version ? { versionId: version.id } : {});
  }

  async createVersion(request: CreateVersionRequest, credentials: GrpcCredentials): Promise<CreateVersionResponse> {
    this.requireStarted();
    requireUuid('service_id', request.serviceId);
    const actor = await this.deps.authorizer.authorize(credentials, request.serviceId);
    const versionId = await this.deps.registration.register(
      actor,
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
        })),
      })),
    );
    return create(CreateVersionResponseSchema, { versionId });
  }

  /** A StartSubscribe request checked and authorized; the stream itself is the transport's. */
  async subscribeRequest(
    request: StartSubscribeRequest,
    credentials: GrpcCredentials,
  ): Promise<ParsedSubscribeRequest> {
    const parsed = parseSubscribeRequest(request);
    await this.deps.authorizer.authorize(credentials, parsed.serviceId);
    return parsed;
  }
}
