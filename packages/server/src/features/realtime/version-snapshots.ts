import { create, toBinary } from '@bufbuild/protobuf';
import {
  GetConfigResponse_ConfigEntrySchema,
  GetConfigResponseSchema,
  KonfigoGetConfigResponseSchema,
  timestampFromMicros,
  type GetConfigResponse,
  type KonfigoGetConfigResponse,
} from '../../protocol.js';
import {
  entryChangeOf,
  isTargeted,
  resolutionKey,
  UNTARGETED,
  type ChangeHub,
  type ChangeNotice,
  type EntryChange,
  type TargetedInstance,
  type UnitOfWork,
} from '../../core/index.js';
import { audienceOf, reaches, resolvedChange, type Audience } from './event-batch.js';
import { grpcFrame } from './grpc-message.js';

interface Answer {
  response: GetConfigResponse | undefined;
  /** The answer in the configured layout as a gRPC frame, made on first use and dropped with the response. */
  frame: Uint8Array | undefined;
}

interface Snapshot {
  readonly versionId: string;
  readonly entries: Map<string, EntryChange>;
  lastTimestamp: number;
  answers: Record<Audience, Answer>;
  /** Its entries with overrides or a rollout (null until asked after a change), and the answers per group of instances that resolve them alike. */
  targeted: EntryChange[] | null;
  groups: Map<string, Answer>;
  readonly stopListening: () => void;
}

/** A version's live entries as GetConfig answers them (VersionSnapshots.current). */
export interface CurrentVersion {
  readonly versionId: string;
  readonly entries: ReadonlyMap<string, EntryChange>;
  /** The newest change applied, µs: changes whenever the entries do. */
  readonly lastTimestamp: number;
}

/** Answers kept per version for groups of instances; beyond it they are made again. */
const MAX_GROUPS = 256;

const noAnswers = (): Record<Audience, Answer> => ({
  secrets: { response: undefined, frame: undefined },
  public: { response: undefined, frame: undefined },
});

const EMPTY = create(GetConfigResponseSchema, { entries: [] });
const EMPTY_FRAME = grpcFrame(toBinary(GetConfigResponseSchema, EMPTY));
const DEFAULT_MAX_VERSIONS = 1000;

export interface VersionSnapshotOptions {
  /** Grpc:GetConfigLayout: the layout of the encoded answers (getConfigFrame). */
  readonly layout: 'Spec' | 'Konfigo';
  /** Versions kept in memory; the least recently used are forgotten beyond it. */
  readonly maxVersions?: number;
}

/**
 * GetConfig answers from memory: the live entries of each requested version, loaded once and then
 * kept current by the change hub. The least recently used versions are forgotten beyond a limit.
 */
export class VersionSnapshots {
  /** In least-recently-used order (a Map iterates in insertion order; a hit re-inserts). */
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly loading = new Map<string, Promise<Snapshot | null>>();
  /** `${serviceId}\0${label}` → version id, dropped when the version is renamed or deleted. */
  private readonly labels = new Map<string, string>();
  private readonly stopWatchingVersions: () => void;

  private readonly maxVersions: number;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly hub: ChangeHub,
    private readonly options: VersionSnapshotOptions = { layout: 'Spec' },
  ) {
    this.maxVersions = options.maxVersions ?? DEFAULT_MAX_VERSIONS;
    this.stopWatchingVersions = hub.subscribeAll((notice) => {
      if (notice.kind === 'entries') return;
      for (const [label, versionId] of this.labels) if (versionId === notice.versionId) this.labels.delete(label);
      if (notice.kind === 'version-deleted') this.forget(notice.versionId);
    });
  }

  /** The snapshot of a version by label; empty when the service or version does not exist. */
  async getConfig(
    serviceId: string,
    label: string,
    withSecrets: boolean,
    instance: TargetedInstance = UNTARGETED,
  ): Promise<GetConfigResponse> {
    const snapshot = await this.byLabel(serviceId, label);
    return snapshot ? this.responseOf(snapshot, audienceOf(withSecrets), instance) : EMPTY;
  }

  /**
   * The live entries of a version by label, as kept in memory (secrets included: the caller filters
   * them with `reaches`), with the version's id and its change clock; null when the service or
   * version does not exist. The map is the snapshot's own: read it at once, do not keep it.
   */
  async current(serviceId: string, label: string): Promise<CurrentVersion | null> {
    const snapshot = await this.byLabel(serviceId, label);
    return snapshot
      ? { versionId: snapshot.versionId, entries: snapshot.entries, lastTimestamp: snapshot.lastTimestamp }
      : null;
  }

  /** The snapshot in the layout of the existing Konfigo SDKs: with the service and version ids. */
  async getKonfigoConfig(
    serviceId: string,
    label: string,
    withSecrets: boolean,
    instance: TargetedInstance = UNTARGETED,
  ): Promise<KonfigoGetConfigResponse> {
    const snapshot = await this.byLabel(serviceId, label);
    return this.konfigoOf(serviceId, snapshot, audienceOf(withSecrets), instance);
  }

  /** The answer in the configured layout as a gRPC frame, encoded once per state of the version. */
  async getConfigFrame(
    serviceId: string,
    label: string,
    withSecrets: boolean,
    instance: TargetedInstance = UNTARGETED,
  ): Promise<Uint8Array> {
    const snapshot = await this.byLabel(serviceId, label);
    const audience = audienceOf(withSecrets);
    if (this.options.layout === 'Konfigo') {
      if (!snapshot)
        return grpcFrame(toBinary(KonfigoGetConfigResponseSchema, this.konfigoOf(serviceId, null, audience, instance)));
      const answer = this.answerOf(snapshot, audience, instance);
      answer.frame ??= grpcFrame(
        toBinary(KonfigoGetConfigResponseSchema, this.konfigoOf(serviceId, snapshot, audience, instance)),
      );
      return answer.frame;
    }
    if (!snapshot) return EMPTY_FRAME;
    const answer = this.answerOf(snapshot, audience, instance);
    answer.frame ??= grpcFrame(toBinary(GetConfigResponseSchema, this.responseOf(snapshot, audience, instance)));
    return answer.frame;
  }

  private konfigoOf(
    serviceId: string,
    snapshot: Snapshot | null,
    audience: Audience,
    instance: TargetedInstance,
  ): KonfigoGetConfigResponse {
    return create(KonfigoGetConfigResponseSchema, {
      serviceId,
      versionId: snapshot?.versionId ?? '',
      entries: snapshot ? this.responseOf(snapshot, audience, instance).entries : [],
    });
  }

  /**
   * The answer an instance gets: the audience's shared one when the version has no overrides or the
   * instance matches none (today's path), else its group's (instances that resolve alike share it).
   */
  private answerOf(snapshot: Snapshot, audience: Audience, instance: TargetedInstance): Answer {
    snapshot.targeted ??= [...snapshot.entries.values()].filter(isTargeted);
    if (snapshot.targeted.length === 0) return snapshot.answers[audience];
    const key = resolutionKey(snapshot.targeted, instance);
    if (key === null) return snapshot.answers[audience];
    const group = `${audience}\n${key}`;
    let answer = snapshot.groups.get(group);
    if (!answer) {
      if (snapshot.groups.size >= MAX_GROUPS) snapshot.groups.clear();
      answer = { response: undefined, frame: undefined };
      snapshot.groups.set(group, answer);
    }
    return answer;
  }

  private async byLabel(serviceId: string, label: string): Promise<Snapshot | null> {
    const versionId = await this.resolveLabel(serviceId, label);
    return versionId ? this.snapshot(versionId) : null;
  }

  private responseOf(snapshot: Snapshot, audience: Audience, instance: TargetedInstance): GetConfigResponse {
    const answer = this.answerOf(snapshot, audience, instance);
    const shared = answer === snapshot.answers[audience];
    answer.response ??= create(GetConfigResponseSchema, {
      entries: [...snapshot.entries.values()]
        .map((e) => (shared ? e : resolvedChange(e, instance)))
        .filter((e) => reaches(e, audience))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
        .map((e) =>
          create(GetConfigResponse_ConfigEntrySchema, {
            key: e.key,
            ...(e.value !== null ? { value: e.value } : {}),
            generation: e.generation,
            timestamp: timestampFromMicros(e.timestamp),
            type: e.valueType,
            // Tells a client to keep it off disk, whatever its own schema declares.
            isSecret: e.isSecret === true,
          }),
        ),
    });
    return answer.response;
  }

  close(): void {
    this.stopWatchingVersions();
    for (const versionId of [...this.snapshots.keys()]) this.forget(versionId);
  }

  private async resolveLabel(serviceId: string, label: string): Promise<string | undefined> {
    const cacheKey = `${serviceId}\u0000${label}`;
    const cached = this.labels.get(cacheKey);
    if (cached) return cached;
    const version = await this.uow.read.versions.findByLabel(serviceId, label);
    if (!version) return undefined;
    this.labels.set(cacheKey, version.id);
    if (this.labels.size > this.maxVersions * 4) this.labels.delete(this.labels.keys().next().value as string);
    return version.id;
  }

  private async snapshot(versionId: string): Promise<Snapshot | null> {
    const hit = this.snapshots.get(versionId);
    if (hit) {
      this.snapshots.delete(versionId);
      this.snapshots.set(versionId, hit);
      return hit;
    }
    let pending = this.loading.get(versionId);
    if (!pending) {
      pending = this.load(versionId).finally(() => this.loading.delete(versionId));
      this.loading.set(versionId, pending);
    }
    return pending;
  }

  /**
   * Listens first, then reads the entries and the version's clock in one consistent read, then
   * applies what arrived meanwhile and is newer than that read.
   */
  private async load(versionId: string): Promise<Snapshot | null> {
    const early: ChangeNotice[] = [];
    let snapshot: Snapshot | undefined;
    const stopListening = this.hub.subscribe(versionId, (notice) => {
      if (snapshot) this.apply(snapshot, notice);
      else early.push(notice);
    });
    try {
      const state = await this.uow.readConsistent(async (stores) => ({
        clock: await stores.versions.clock(versionId),
        entries: await stores.entries.listLive(versionId),
      }));
      if (state.clock === undefined) {
        stopListening();
        return null;
      }
      snapshot = {
        versionId,
        entries: new Map(state.entries.map((e) => [e.key, entryChangeOf(e)])),
        lastTimestamp: state.clock,
        answers: noAnswers(),
        targeted: null,
        groups: new Map(),
        stopListening,
      };
      if (early.some((n) => n.kind === 'version-deleted')) {
        stopListening();
        return null;
      }
      for (const notice of early) this.apply(snapshot, notice);
      this.snapshots.set(versionId, snapshot);
      while (this.snapshots.size > this.maxVersions) this.forget(this.snapshots.keys().next().value as string);
      return snapshot;
    } catch (error) {
      stopListening();
      throw error;
    }
  }

  private apply(snapshot: Snapshot, notice: ChangeNotice): void {
    if (notice.timestamp <= snapshot.lastTimestamp) return;
    snapshot.lastTimestamp = notice.timestamp;
    if (notice.kind === 'version-deleted') {
      this.forget(snapshot.versionId);
      return;
    }
    for (const change of notice.entries) {
      if (change.deleted) snapshot.entries.delete(change.key);
      else snapshot.entries.set(change.key, change);
    }
    if (notice.entries.length > 0) {
      snapshot.answers = noAnswers();
      snapshot.targeted = null;
      snapshot.groups = new Map();
    }
  }

  private forget(versionId: string): void {
    const snapshot = this.snapshots.get(versionId);
    if (!snapshot) return;
    snapshot.stopListening();
    this.snapshots.delete(versionId);
  }
}
