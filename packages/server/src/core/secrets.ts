import { randomBytes } from 'node:crypto';
import { EnvelopeCipher, hmacHex, UnreadableSecret, type MasterKey } from '../platform/envelope-cipher.js';
import { AppError } from '../platform/errors.js';
import type { AuditRecord } from './audit.js';
import { actorOfCaller, type Caller } from './caller.js';
import type { EntryRecord } from './entries.js';
import { hasPolicy } from './identity.js';
import type { SettingsStore } from './settings.js';

export { UnreadableSecret } from '../platform/envelope-cipher.js';

/**
 * Secret values at rest and in answers. Every stored copy of a secret's value is sealed (envelope
 * encryption under the master key); answers show a fingerprint in its place: an HMAC-SHA256 of the
 * value under a fingerprint key made once, kept sealed in the database (settings) and re-wrapped,
 * never replaced, by a rotation, so equal values keep equal fingerprints.
 */
export interface SecretCipher {
  /** A master key is configured: secrets can be created and set. */
  readonly ready: boolean;
  /** Seals a value; without a master key a 409 that names `Secrets:MasterKeyFile`. */
  seal(plain: string): string;
  /** Opens a sealed value; throws `UnreadableSecret` when it cannot (altered, or its key is gone). */
  open(sealed: string): string;
  /** The same value with its data key wrapped by the current master key; null when it already is. */
  rewrap(sealed: string): string | null;
  /** The fingerprint of a value (null for null). */
  fingerprint(plain: string | null): string | null;
}

export const FINGERPRINT_KEY_SETTING = 'secrets-fingerprint-key';

export const noMasterKey = (): AppError =>
  AppError.conflict(
    'Secrets need a master key: set Secrets:MasterKeyFile to a file holding 32 random bytes in base64 (for example `openssl rand -base64 32 > secrets.key`) and restart the server.',
  );

/** The server's cipher: the master keys from the configuration; the fingerprint key from `load`. */
export class SecretKeys implements SecretCipher {
  private readonly envelope: EnvelopeCipher;
  private fingerprintKey: Buffer | null = null;

  constructor(current: MasterKey | null, previous: readonly MasterKey[]) {
    this.envelope = new EnvelopeCipher(current, previous);
  }

  get ready(): boolean {
    return this.envelope.current !== null;
  }

  /**
   * Reads (or, the first time, creates) the sealed fingerprint key; without a master key there is
   * none. Answers false when the stored one cannot be opened (no configured key sealed it): secrets
   * then have no fingerprints, and those sealed by the missing key read as unreadable.
   */
  async load(settings: SettingsStore): Promise<boolean> {
    if (!this.ready) return true;
    const sealed = await settings.getOrCreate(
      FINGERPRINT_KEY_SETTING,
      this.envelope.seal(randomBytes(32).toString('base64')),
    );
    try {
      this.fingerprintKey = Buffer.from(this.envelope.open(sealed), 'base64');
      return true;
    } catch (error) {
      if (error instanceof UnreadableSecret) return false;
      throw error;
    }
  }

  seal(plain: string): string {
    if (!this.ready) throw noMasterKey();
    return this.envelope.seal(plain);
  }

  open(sealed: string): string {
    return this.envelope.open(sealed);
  }

  rewrap(sealed: string): string | null {
    if (!this.ready) throw noMasterKey();
    return this.envelope.rewrap(sealed);
  }

  fingerprint(plain: string | null): string | null {
    if (plain === null) return null;
    if (!this.fingerprintKey) throw new UnreadableSecret('no fingerprint key');
    return hmacHex(this.fingerprintKey, plain);
  }
}

/** What an answer shows in place of a secret's value. */
export interface RedactedValue {
  readonly rawValue: null;
  readonly redacted: true;
  readonly fingerprint: string | null;
}

/** A secret value as answers show it; an unreadable one has no fingerprint. */
export function redactedValue(cipher: SecretCipher, plain: string | null, unreadable = false): RedactedValue {
  let fingerprint: string | null = null;
  if (!unreadable) {
    try {
      fingerprint = cipher.fingerprint(plain);
    } catch {
      fingerprint = null;
    }
  }
  return { rawValue: null, redacted: true, fingerprint };
}

/** The stored copies of secret values as a whole: turning an entry secret, rotating the master key. */
export interface SecretStore {
  /**
   * Seals every stored copy of an entry's earlier values (its audit records, change requests naming
   * it, the change log) once it has turned secret, and redacts them in its webhook deliveries.
   */
  sealHistoryOf(entry: { readonly id: string; readonly versionId: string; readonly key: string }): Promise<void>;
  /**
   * Re-wraps the data key of every sealed value (and the fingerprint key, and the webhook signing
   * secrets, sealing those still in plaintext) with the current master key; answers how many were
   * re-wrapped. Values no configured key opens stay as they are.
   */
  rewrapAll(): Promise<number>;
}

/** The caller may read secret values over REST (reveal, export with them): a person with canReveal. */
export function mayReveal(caller: Caller): boolean {
  return caller.kind === 'user' && hasPolicy(caller.identity, 'canReveal');
}

export function requireReveal(caller: Caller): void {
  if (!mayReveal(caller)) {
    throw AppError.forbidden('Reading secret values needs the canReveal policy (Authorization:Policies:canReveal).');
  }
}

/**
 * The caller receives secret entries over gRPC: an API key with the `secrets` scope, or a token
 * (Jwt or personal) or session of a canReveal user. Everyone else never learns of them.
 */
export function receivesSecrets(caller: Caller): boolean {
  if (caller.kind === 'apiKey') return caller.key.scopes.includes('secrets');
  return mayReveal(caller);
}

/** A secret that cannot be decrypted reads as an error, never as a value. */
export function unreadableSecret(key: string): AppError {
  return new AppError(
    'INTERNAL',
    `The stored value of ${key} cannot be decrypted: it was altered, or the master key that sealed it is not configured (Secrets:PreviousKeyFiles).`,
  );
}

/** The audit record of a reveal: who saw which entry, never the value. */
export function revealedRecord(
  id: string,
  caller: Caller,
  serviceId: string,
  entry: EntryRecord,
  nowMicros: number,
): Omit<AuditRecord, 'num'> {
  return {
    id,
    serviceId,
    entityType: 'Entry',
    entityId: entry.id,
    versionId: entry.versionId,
    entryKey: entry.key,
    action: 'Revealed',
    ...actorOfCaller(caller),
    timestamp: nowMicros,
    changes: { after: { key: entry.key, generation: entry.generation } },
  };
}
