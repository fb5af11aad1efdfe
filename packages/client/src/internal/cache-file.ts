import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { RemoteEntry } from './config-state.js';

const FORMAT = 'realtime-config-cache/1';

/** An entry as the cache file keeps it: a secret's value encrypted (`sealed`), with `value` null. */
export interface CachedEntry extends RemoteEntry {
  readonly sealed?: string;
}

/** What the cache file holds: the last applied snapshot of one version, with its stream position. */
export interface CachedSnapshot {
  readonly serviceId: string;
  readonly version: string;
  readonly versionId: string;
  /** The timestamp (µs) to resume the stream from; null when the version had no change yet. */
  readonly lastTimestamp: number | null;
  readonly entries: readonly CachedEntry[];
}

/**
 * The entries as the cache file may hold them: the values of secret keys (declared `secret: true`
 * by the schema, or marked secret by the server, whichever says so) encrypted with the cache key
 * (AES-256-GCM, a random nonce each, the key name as associated data), or left out without one.
 */
export function protectSecrets(
  entries: readonly RemoteEntry[],
  secretKeys: ReadonlySet<string>,
  cacheKey: Buffer | undefined,
): { entries: CachedEntry[]; leftOut: number } {
  let leftOut = 0;
  const kept = entries.flatMap((e): CachedEntry[] => {
    if (!(secretKeys.has(e.key) || e.secret === true) || e.value === null) return [e];
    if (!cacheKey) {
      leftOut++;
      return [];
    }
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', cacheKey, nonce);
    cipher.setAAD(Buffer.from(e.key, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(e.value, 'utf8'), cipher.final()]);
    const sealed = [nonce, ciphertext, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
    return [{ key: e.key, value: null, timestamp: e.timestamp, secret: true, sealed }];
  });
  return { entries: kept, leftOut };
}

/** The cached entries with their secrets decrypted; one that cannot be (no or another key) is left out. */
export function openSecrets(entries: readonly CachedEntry[], cacheKey: Buffer | undefined): RemoteEntry[] {
  return entries.flatMap((e): RemoteEntry[] => {
    if (e.sealed === undefined) {
      return [{ key: e.key, value: e.value, timestamp: e.timestamp, ...(e.secret === true ? { secret: true } : {}) }];
    }
    if (!cacheKey) return [];
    try {
      const [nonce, ciphertext, tag] = e.sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', cacheKey, nonce as Buffer);
      decipher.setAAD(Buffer.from(e.key, 'utf8'));
      decipher.setAuthTag(tag as Buffer);
      const value = Buffer.concat([decipher.update(ciphertext as Buffer), decipher.final()]).toString('utf8');
      return [{ key: e.key, value, timestamp: e.timestamp, secret: true }];
    } catch {
      return [];
    }
  });
}

function isEntry(value: unknown): value is RemoteEntry {
  const e = value as Partial<RemoteEntry> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.key === 'string' &&
    (typeof e.value === 'string' || e.value === null) &&
    Number.isSafeInteger(e.timestamp)
  );
}

/**
 * Reads the cache file. Returns the snapshot, or a reason it cannot be used (missing, unreadable,
 * another format, or another service or version label).
 */
export async function readCache(
  file: string,
  expected: { readonly serviceId: string; readonly version: string },
): Promise<{ snapshot: CachedSnapshot } | { problem: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? `the cache file ${file} does not exist yet` : `${file}: ${String(error)}` };
  }
  let data: Partial<CachedSnapshot & { format: string }>;
  try {
    data = JSON.parse(text) as typeof data;
  } catch {
    return { problem: `the cache file ${file} is not valid JSON` };
  }
  const valid =
    data.format === FORMAT &&
    typeof data.versionId === 'string' &&
    (data.lastTimestamp === null || Number.isSafeInteger(data.lastTimestamp)) &&
    Array.isArray(data.entries) &&
    data.entries.every(isEntry);
  if (!valid) return { problem: `the cache file ${file} is not a ${FORMAT} file` };
  if (data.serviceId !== expected.serviceId || data.version !== expected.version) {
    return {
      problem: `the cache file ${file} holds service ${String(data.serviceId)} version "${String(data.version)}", not this one`,
    };
  }
  return { snapshot: data as CachedSnapshot };
}

/**
 * Writes snapshots to the cache file atomically: a temporary file in the same folder, flushed to
 * disk, then renamed over the old one, so a reader (or a crash) never sees half a file. Saves that
 * arrive while a write is under way are coalesced into one write of the newest snapshot.
 */
export class CacheWriter {
  private next: CachedSnapshot | undefined;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly file: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  save(snapshot: CachedSnapshot): void {
    this.next = snapshot;
    this.writing ??= this.drain();
  }

  /** Resolves once every saved snapshot is on disk (or has failed and been reported). */
  async flush(): Promise<void> {
    await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.next) {
      const snapshot = this.next;
      this.next = undefined;
      try {
        await this.write(snapshot);
      } catch (error) {
        this.onError(error);
      }
    }
    this.writing = undefined;
  }

  private async write(snapshot: CachedSnapshot): Promise<void> {
    const dir = path.dirname(this.file);
    await mkdir(dir, { recursive: true });
    const temporary = path.join(dir, `.${path.basename(this.file)}.${randomBytes(6).toString('hex')}.tmp`);
    const text = `${JSON.stringify({ format: FORMAT, savedAt: new Date().toISOString(), ...snapshot }, null, 2)}\n`;
    try {
      const handle = await open(temporary, 'w', 0o600);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}
