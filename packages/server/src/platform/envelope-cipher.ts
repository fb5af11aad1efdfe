import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * Envelope encryption with Node's crypto (AES-256-GCM throughout): every value gets a fresh random
 * 32-byte data key; the value is encrypted with it, and the data key is encrypted ("wrapped") by a
 * master key. The stored text names the master key by its id, so several keys can decrypt while one
 * (the current) encrypts, and rotation only re-wraps the data keys.
 *
 * Stored form: `rcsec1.<master key id>.<wrapped data key>.<nonce>.<ciphertext>.<tag>` (base64url parts).
 */

const VERSION = 'rcsec1';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Associated data of the wrapped data keys and of the values: a part never passes for the other. */
const WRAP_AAD = Buffer.from('rcsec1:data-key');
const VALUE_AAD = Buffer.from('rcsec1:value');

/** A master key: 32 random bytes; its id is the start of their SHA-256 (never the key itself). */
export interface MasterKey {
  readonly id: string;
  readonly bytes: Buffer;
}

/** A stored value that cannot be decrypted: no key with its id, or it was altered. */
export class UnreadableSecret extends Error {
  override readonly name = 'UnreadableSecret';
}

export function masterKeyOf(bytes: Buffer): MasterKey {
  if (bytes.length !== KEY_BYTES) throw new Error(`a master key holds ${KEY_BYTES} bytes, this one ${bytes.length}`);
  return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 16), bytes };
}

/** Reads a key file: 32 random bytes in base64 (surrounding white space ignored). */
export function readMasterKeyFile(path: string): MasterKey {
  const text = readFileSync(path, 'utf8').trim();
  const bytes = Buffer.from(text, 'base64');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text) || bytes.length !== KEY_BYTES) {
    throw new Error(`${path} does not hold ${KEY_BYTES} bytes in base64`);
  }
  return masterKeyOf(bytes);
}

/** Creates a key file readable by its owner only (0600); fails when the file exists. */
export function createMasterKeyFile(path: string): MasterKey {
  const bytes = randomBytes(KEY_BYTES);
  writeFileSync(path, `${bytes.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return masterKeyOf(bytes);
}

export function newMasterKey(): MasterKey {
  return masterKeyOf(randomBytes(KEY_BYTES));
}

const b64 = (buffer: Buffer): string => buffer.toString('base64url');

function gcmEncrypt(key: Buffer, plain: Buffer, aad: Buffer): { nonce: Buffer; ciphertext: Buffer; tag: Buffer } {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { nonce, ciphertext, tag: cipher.getAuthTag() };
}

function gcmDecrypt(key: Buffer, nonce: Buffer, ciphertext: Buffer, tag: Buffer, aad: Buffer): Buffer {
  if (nonce.length !== NONCE_BYTES || tag.length !== TAG_BYTES) throw new UnreadableSecret('malformed');
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new UnreadableSecret('the stored value does not authenticate');
  }
}

interface Envelope {
  readonly keyId: string;
  readonly wrapped: Buffer;
  readonly nonce: Buffer;
  readonly ciphertext: Buffer;
  readonly tag: Buffer;
}

function parse(sealed: string): Envelope {
  const parts = sealed.split('.');
  if (parts.length !== 6 || parts[0] !== VERSION) throw new UnreadableSecret('not a sealed value');
  const [, keyId, wrapped, nonce, ciphertext, tag] = parts as [string, string, string, string, string, string];
  const buf = (text: string) => Buffer.from(text, 'base64url');
  return { keyId, wrapped: buf(wrapped), nonce: buf(nonce), ciphertext: buf(ciphertext), tag: buf(tag) };
}

const format = (e: Envelope): string =>
  [VERSION, e.keyId, b64(e.wrapped), b64(e.nonce), b64(e.ciphertext), b64(e.tag)].join('.');

function wrap(master: MasterKey, dataKey: Buffer): Buffer {
  const { nonce, ciphertext, tag } = gcmEncrypt(master.bytes, dataKey, WRAP_AAD);
  return Buffer.concat([nonce, ciphertext, tag]);
}

function unwrap(master: MasterKey, wrapped: Buffer): Buffer {
  if (wrapped.length !== NONCE_BYTES + KEY_BYTES + TAG_BYTES) throw new UnreadableSecret('malformed data key');
  return gcmDecrypt(
    master.bytes,
    wrapped.subarray(0, NONCE_BYTES),
    wrapped.subarray(NONCE_BYTES, NONCE_BYTES + KEY_BYTES),
    wrapped.subarray(NONCE_BYTES + KEY_BYTES),
    WRAP_AAD,
  );
}

/** Encrypts with the current master key; decrypts with it or any previous one. */
export class EnvelopeCipher {
  private readonly keys: ReadonlyMap<string, MasterKey>;

  constructor(
    readonly current: MasterKey | null,
    previous: readonly MasterKey[] = [],
  ) {
    this.keys = new Map([...previous, ...(current ? [current] : [])].map((k) => [k.id, k]));
  }

  seal(plain: string): string {
    if (!this.current) throw new Error('no master key');
    const dataKey = randomBytes(KEY_BYTES);
    const { nonce, ciphertext, tag } = gcmEncrypt(dataKey, Buffer.from(plain, 'utf8'), VALUE_AAD);
    return format({ keyId: this.current.id, wrapped: wrap(this.current, dataKey), nonce, ciphertext, tag });
  }

  open(sealed: string): string {
    const envelope = parse(sealed);
    const master = this.keys.get(envelope.keyId);
    if (!master) throw new UnreadableSecret(`no master key with id ${envelope.keyId} is configured`);
    const dataKey = unwrap(master, envelope.wrapped);
    return gcmDecrypt(dataKey, envelope.nonce, envelope.ciphertext, envelope.tag, VALUE_AAD).toString('utf8');
  }

  /** The same value with its data key wrapped by the current master key; null when it already is. */
  rewrap(sealed: string): string | null {
    if (!this.current) throw new Error('no master key');
    const envelope = parse(sealed);
    if (envelope.keyId === this.current.id) return null;
    const master = this.keys.get(envelope.keyId);
    if (!master) throw new UnreadableSecret(`no master key with id ${envelope.keyId} is configured`);
    return format({
      ...envelope,
      keyId: this.current.id,
      wrapped: wrap(this.current, unwrap(master, envelope.wrapped)),
    });
  }
}

/** HMAC-SHA256 in hex: a value's fingerprint under a fingerprint key. */
export function hmacHex(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}

export const isSealedText = (text: string): boolean => text.startsWith(`${VERSION}.`);

/** The id of the master key that sealed a stored value (not secret: it is stored with the value). */
export const sealedKeyId = (sealed: string): string => parse(sealed).keyId;
