import type { FastifyRequest } from 'fastify';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { Authenticator } from './auth-plugin.js';
import { resolveIdentity, type ClaimSettings, type Identity } from './identity.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from './password.js';
import type { LocalRole, UserRecord } from './user-store.js';

export const MIN_PASSWORD_LENGTH = 8;

/** The Local provider: users with a password and one role, kept in our database. */
export class LocalAccounts implements Authenticator {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly claimSettings: ClaimSettings,
  ) {}

  /** The identity of a user as every provider would present it: claims through the shared mapping. */
  identityOf(user: UserRecord): Identity {
    // No `name` claim: it is one of the role claim types, so the username would become a role and a
    // user named like a canAll role (or a demoted admin called `admin`) would keep canAll.
    const identity = resolveIdentity('local', { sub: user.username, role: user.role }, this.claimSettings);
    if (!identity) throw new Error('A local user always has an id');
    return { ...identity, name: user.username };
  }

  async authenticate(request: FastifyRequest): Promise<Identity | null> {
    const username = request.session.localUser;
    if (!username) return null;
    // Read the user on every request so that a deleted or demoted user loses access at once.
    const user = await this.uow.read.users.get(username);
    // The session belongs to the account it signed in to, not to one re-created later under that name.
    if (!user || user.createdAt !== request.session.localUserCreatedAt) return null;
    return this.identityOf(user);
  }

  /** Checks credentials in constant time; an unknown user costs the same as a wrong password. */
  async verifyCredentials(username: string, password: string): Promise<UserRecord | null> {
    const user = await this.uow.read.users.get(username);
    const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
    return user && ok ? user : null;
  }

  /**
   * SPEC.md Local rules 1–2: create the admin when missing; never overwrite its password later.
   * Returns true when the admin still signs in with the built-in default password.
   */
  async seedAdmin(username: string, password: string, builtInDefault: string): Promise<boolean> {
    const existing = await this.uow.read.users.get(username);
    if (!existing) {
      const now = this.clock.nowMicros();
      const passwordHash = await hashPassword(password);
      try {
        await this.uow.write((ctx) =>
          ctx.users.insert({ username, passwordHash, role: 'admin', createdAt: now, updatedAt: now }),
        );
      } catch (error) {
        // Another instance seeded it at the same moment: that is fine.
        if (!(await this.uow.read.users.get(username))) throw error;
      }
    }
    const admin = await this.uow.read.users.get(username);
    return admin !== undefined && admin.role === 'admin' && (await verifyPassword(builtInDefault, admin.passwordHash));
  }

  list(): Promise<UserRecord[]> {
    return this.uow.read.users.list();
  }

  async get(username: string): Promise<UserRecord> {
    const user = await this.uow.read.users.get(username);
    if (!user) throw AppError.notFound(`User ${username} was not found.`);
    return user;
  }

  async create(input: { username: string; password: string; role: LocalRole }): Promise<UserRecord> {
    const passwordHash = await hashPassword(input.password);
    return this.uow.write(async (ctx) => {
      if (await ctx.users.get(input.username)) throw AppError.alreadyExists(`User ${input.username} already exists.`);
      const now = this.clock.nowMicros();
      const user: UserRecord = {
        username: input.username,
        passwordHash,
        role: input.role,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.users.insert(user);
      return user;
    });
  }

  async update(username: string, change: { password?: string; role?: LocalRole }): Promise<UserRecord> {
    const passwordHash = change.password !== undefined ? await hashPassword(change.password) : undefined;
    return this.uow.write(async (ctx) => {
      const user = await ctx.users.get(username);
      if (!user) throw AppError.notFound(`User ${username} was not found.`);
      if (user.role === 'admin' && change.role === 'developer') {
        if ((await ctx.users.countByRole('admin')) <= 1) throw AppError.conflict('The last admin cannot be demoted.');
      }
      await ctx.users.update(username, {
        ...(passwordHash !== undefined ? { passwordHash } : {}),
        ...(change.role !== undefined ? { role: change.role } : {}),
        updatedAt: this.clock.nowMicros(),
      });
      return (await ctx.users.get(username)) as UserRecord;
    });
  }

  delete(actor: Identity, username: string): Promise<void> {
    return this.uow.write(async (ctx) => {
      const user = await ctx.users.get(username);
      if (!user) throw AppError.notFound(`User ${username} was not found.`);
      if (actor.id === username) throw AppError.conflict('You cannot delete your own account.');
      if (user.role === 'admin' && (await ctx.users.countByRole('admin')) <= 1) {
        throw AppError.conflict('The last admin cannot be deleted.');
      }
      await ctx.users.delete(username);
    });
  }
}
