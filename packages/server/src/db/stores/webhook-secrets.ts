import type { Kysely } from 'kysely';
import { UnreadableSecret, type SecretCipher } from '../../core/index.js';
import { isSealedText } from '../../platform/envelope-cipher.js';
import type { DatabaseSchema } from '../schema.js';

/**
 * Signing secrets at rest (`webhooks.secret`, `webhooks.previous_secret`, `validators.secret`): sealed by the
 * master key like secret values (`rcsec1.…`), so a copy of the database without the key file holds
 * none. Without a master key (PostgreSQL without Secrets:MasterKeyFile) they are stored as they are
 * (`whsec_…`), as are the rows of releases before sealing; both forms are read, and the server seals
 * the plaintext ones at start once it has a key (`sealSigningSecrets`).
 */

/** The stored form of a signing secret: sealed when a master key is configured. */
export function storedSigningSecret(cipher: SecretCipher, plain: string): string {
  return cipher.ready ? cipher.seal(plain) : plain;
}

/** A stored signing secret opened; null for none, or for one no configured master key opens. */
export function openedSigningSecret(cipher: SecretCipher, stored: string | null): string | null {
  if (stored === null || !isSealedText(stored)) return stored;
  try {
    return cipher.open(stored);
  } catch (error) {
    if (error instanceof UnreadableSecret) return null;
    throw error;
  }
}

/** The new stored form of a stored secret: sealed if plaintext, re-wrapped if asked; null when unchanged. */
function resealed(cipher: SecretCipher, stored: string | null, rewrap: boolean): string | null {
  if (stored === null) return null;
  if (!isSealedText(stored)) return cipher.seal(stored);
  if (!rewrap) return null;
  try {
    return cipher.rewrap(stored);
  } catch (error) {
    // Sealed by a key that is not configured: it stays as it is (and reads as unreadable).
    if (error instanceof UnreadableSecret) return null;
    throw error;
  }
}

/**
 * Seals the plaintext signing secrets (and, with `rewrap`, re-wraps the sealed ones with the current
 * master key); answers how many stored secrets it rewrote. Each row is rewritten only if it still
 * holds what was read, so a concurrent rotation (or another instance doing the same) is never undone.
 */
export async function sealSigningSecrets(
  db: Kysely<DatabaseSchema>,
  cipher: SecretCipher,
  rewrap: boolean,
): Promise<number> {
  let query = db.selectFrom('webhooks').select(['id', 'secret', 'previous_secret']);
  if (!rewrap) {
    query = query.where((eb) =>
      eb.or([eb('secret', 'not like', 'rcsec1.%'), eb('previous_secret', 'not like', 'rcsec1.%')]),
    );
  }
  let count = 0;
  for (const row of await query.execute()) {
    const secret = resealed(cipher, row.secret, rewrap);
    const previous = resealed(cipher, row.previous_secret, rewrap);
    if (secret === null && previous === null) continue;
    const result = await db
      .updateTable('webhooks')
      .set({ ...(secret !== null ? { secret } : {}), ...(previous !== null ? { previous_secret: previous } : {}) })
      .where('id', '=', row.id)
      .where('secret', '=', row.secret)
      .where((eb) =>
        row.previous_secret === null
          ? eb('previous_secret', 'is', null)
          : eb('previous_secret', '=', row.previous_secret),
      )
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) count += (secret !== null ? 1 : 0) + (previous !== null ? 1 : 0);
  }
  return count;
}

/** `sealSigningSecrets` for validators' secrets (one per row, never rotated). */
export async function sealValidatorSecrets(
  db: Kysely<DatabaseSchema>,
  cipher: SecretCipher,
  rewrap: boolean,
): Promise<number> {
  let query = db.selectFrom('validators').select(['id', 'secret']);
  if (!rewrap) query = query.where('secret', 'not like', 'rcsec1.%');
  let count = 0;
  for (const row of await query.execute()) {
    const secret = resealed(cipher, row.secret, rewrap);
    if (secret === null) continue;
    const result = await db
      .updateTable('validators')
      .set({ secret })
      .where('id', '=', row.id)
      .where('secret', '=', row.secret)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) count += 1;
  }
  return count;
}
