import { randomBytes } from 'node:crypto';
import {
  EnvelopeCipher,
  hmacHex,
  isSealedText,
  sealedKeyId,
  UnreadableSecret,
  type MasterKey,
} from '../platform/envelope-cipher.js';
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

/** Where the current master key comes from: what the start says when it must stop, and how to make one. */
export interface MasterKeySource {
  /**
   * Where the current key is and what to do when it does not open the database, for the message that
   * stops the start ("Secrets:MasterKeyFile is /etc/…: name the key file they were sealed with").
   */
  readonly describe: string;
  /**
   * Makes (and keeps) the current key when none is configured yet: the embedded database's
   * `<DataDir>/secrets.key`. Called only for a database that holds no sealed value.
   */
  readonly create?: () => MasterKey;
}

/** The id of the key that sealed a stored value, or `?` for text that only looks sealed. */
function keyIdOf(sealed: string): string {
  try {
    return sealedKeyId(sealed);
  } catch {
    return '?';
  }
}

/** The server's cipher: the master keys from the configuration; the fingerprint key from `load`. */
export class SecretKeys implements SecretCipher {
  private envelope: EnvelopeCipher;
  private fingerprintKey: Buffer | null = null;

  constructor(
    current: MasterKey | null,
    private readonly previous: readonly MasterKey[],
    private readonly source: MasterKeySource = {
      describe: 'Secrets:MasterKeyFile is not set: set it to the key file they were sealed with',
    },
  ) {
    this.envelope = new EnvelopeCipher(current, previous);
  }

  get ready(): boolean {
    return this.envelope.current !== null;
  }

  /**
   * Checks the configured master keys against the database, then reads (or, the first time, creates)
   * the sealed fingerprint key; run at every start before anything reads or writes a secret. The
   * settings the server seals itself (the fingerprint key, the session secret) say which key the
   * database was sealed with: when no configured key opens one of them (a restore without its key
   * file, a key no longer configured), the start stops with a message naming Secrets:MasterKeyFile
   * instead of serving every secret as unreadable. A key the server may make itself (`source.create`)
   * is made only for a database that holds no sealed setting: a fresh key would open none of it.
   */
  async load(settings: SettingsStore): Promise<void> {
    const sealed = [...(await settings.all()).values()].filter(isSealedText);
    if (!this.ready && this.source.create && sealed.length === 0) {
      this.envelope = new EnvelopeCipher(this.source.create(), this.previous);
    }
    const unopened = sealed.filter((value) => !this.opens(value));
    if (unopened.length > 0) {
      const ids = [...new Set(unopened.map(keyIdOf))].join(', ');
      throw new Error(
        `The database holds values sealed by the master key ${ids}, which no configured key opens; ${this.source.describe}. ` +
          'After a restore that is the key file kept with the backup (docs/secrets.md).',
      );
    }
    if (!this.ready) return;
    const fingerprintKey = await this.sealedSetting(settings, FINGERPRINT_KEY_SETTING, () =>
      randomBytes(32).toString('base64'),
    );
    this.fingerprintKey = Buffer.from(fingerprintKey, 'base64');
  }

  /**
   * A value the server keeps in `settings` for every instance, sealed by the master key like a
   * secret value: made by `make` the first time (first writer wins), opened on every start. Without a
   * master key (PostgreSQL without Secrets:MasterKeyFile) it is stored as it is. A plaintext one
   * (from then, or from an earlier release) is replaced by a new sealed value at the first start
   * with a key, not sealed: its plaintext may be in any backup or dump taken since.
   */
  async sealedSetting(settings: SettingsStore, key: string, make: () => string): Promise<string> {
    const stored = await settings.getOrCreate(key, this.ready ? this.seal(make()) : make());
    if (isSealedText(stored)) return this.open(stored);
    if (!this.ready) return stored;
    const replacement = this.seal(make());
    // Conditional: when another instance replaced it first, its value is the one every instance uses.
    const current = (await settings.replace(key, stored, replacement))
      ? replacement
      : await settings.getOrCreate(key, replacement);
    return this.open(current);
  }

  private opens(sealed: string): boolean {
    try {
      this.envelope.open(sealed);
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
   * Re-wraps the data key of every sealed value (and the sealed settings: the fingerprint key and
   * the session secret; and the webhook signing secrets, sealing those still in plaintext) with the
   * current master key; answers how many were re-wrapped. Values no configured key opens stay as
   * they are.
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

/**
 * A secret that cannot be decrypted reads as an error, never as a value: 409, as the stored value
 * (not the request) is what stands in the way, and no retry helps until the key is configured.
 */
export function unreadableSecret(keys: string | readonly string[]): AppError {
  const names = typeof keys === 'string' ? keys : keys.join(', ');
  return AppError.conflict(
    `The stored value of ${names} cannot be decrypted: it was altered, or the master key that sealed it is neither Secrets:MasterKeyFile nor in Secrets:PreviousKeyFiles. Set the value again to replace it.`,
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
