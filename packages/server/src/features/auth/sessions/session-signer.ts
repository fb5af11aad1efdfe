import { randomBytes } from 'node:crypto';
import { Signer, type UnsignResult } from '@fastify/cookie';

/**
 * Signs session cookies with a secret that is known only once the database answers (it is kept
 * there, shared by every instance, unless Session:Secret gives one). Until then the server
 * answers only health, readiness and metrics, which never save a session: @fastify/session still
 * signs an id for each request, so a throwaway secret signs it, and no cookie is accepted.
 */
export class DeferredSigner {
  private signer: Signer | undefined;
  private readonly throwaway = new Signer(randomBytes(32).toString('base64url'), 'sha256');

  setSecret(secret: string): void {
    this.signer = new Signer(secret, 'sha256');
  }

  sign(value: string): string {
    return (this.signer ?? this.throwaway).sign(value);
  }

  unsign(input: string): UnsignResult {
    return this.signer ? this.signer.unsign(input) : { valid: false, renew: false, value: null };
  }
}
