import type { Identity, LocalRole, UnitOfWork, UserRecord } from '../../../core/index.js';
import type { Clock } from '../../../platform/clock.js';
import { AppError } from '../../../platform/errors.js';
import { resolveIdentity, type ClaimSettings } from '../identity/identity.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from './password.js';
import { passwordProblems } from './password-policy.js';

/** `PUT /api/users/me/password` addresses the signed-in user, so no account may be called that. */
const RESERVED_USERNAMES = new Set(['me']);

function requireAcceptable(field: string, username: string, password: string): void {
  const problems = passwordProblems(username, password);
  if (problems.length > 0)
    throw AppError.invalid(`The ${field === 'password' ? 'password' : 'new password'} is not acceptable.`, {
      [field]: problems,
    });
}

/**
 * What a session keeps of the local account it signed in to (the session's fields of these names):
 * the username, and when the account was made and its password set, so that an account re-created
 * under the name, or a changed password, does not open it.
 */
export interface LocalSignIn {
  readonly localUser?: string;
  readonly localUserCreatedAt?: number;
  readonly localUserPasswordChangedAt?: number;
}

/** The Local provider: users with a password and one role, kept in our database. */
export class LocalAccounts {
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
    return { ...identity, name: user.username, passwordChangeRequired: user.mustChangePassword };
  }

  /** The identity a session's sign-in stands for, or null when it no longer holds. */
  async authenticate(signIn: LocalSignIn): Promise<Identity | null> {
    const username = signIn.localUser;
    if (!username) return null;
    // Read the user on every request so that a deleted or demoted user loses access at once.
    const user = await this.uow.read.users.get(username);
    if (!user) return null;
    // The session belongs to the account it signed in to, not to one re-created later under that
    // name, and ends when the password changes (except where the change was made, see signInOf()).
    const { localUserCreatedAt, localUserPasswordChangedAt } = signIn;
    if (user.createdAt !== localUserCreatedAt) return null;
    if (user.passwordChangedAt !== (localUserPasswordChangedAt ?? user.createdAt)) return null;
    return this.identityOf(user);
  }

  /** What ties a session to the account as it is now (after sign-in or its own password change). */
  static signInOf(user: UserRecord): Required<LocalSignIn> {
    return {
      localUser: user.username,
      localUserCreatedAt: user.createdAt,
      localUserPasswordChangedAt: user.passwordChangedAt,
    };
  }

  /** Checks credentials in constant time; an unknown user costs the same as a wrong password. */
  async verifyCredentials(username: string, password: string): Promise<UserRecord | null> {
    const user = await this.uow.read.users.get(username);
    const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
    return user && ok ? user : null;
  }

  /**
   * The seeded admin (docs/rest-api.md, Local): create it when missing; never overwrite its password later.
   * Returns true when the admin still signs in with the built-in default password.
   */
  async seedAdmin(username: string, password: string, builtInDefault: string): Promise<boolean> {
    const existing = await this.uow.read.users.get(username);
    if (!existing) {
      const now = this.clock.nowMicros();
      const passwordHash = await hashPassword(password);
      const user: UserRecord = {
        username,
        passwordHash,
        role: 'admin',
        createdAt: now,
        updatedAt: now,
        passwordChangedAt: now,
        mustChangePassword: password === builtInDefault,
      };
      try {
        await this.uow.write((ctx) => ctx.users.insert(user));
      } catch (error) {
        // Another instance seeded it at the same moment: that is fine.
        if (!(await this.uow.read.users.get(username))) throw error;
      }
    }
    const admin = await this.uow.read.users.get(username);
    if (!admin || admin.role !== 'admin' || !(await verifyPassword(builtInDefault, admin.passwordHash))) return false;
    if (!admin.mustChangePassword) {
      // Seeded before accounts remembered this: the default password must still be changed.
      await this.uow.write((ctx) =>
        ctx.users.update(username, {
          password: { hash: admin.passwordHash, changedAt: admin.passwordChangedAt, mustChange: true },
          updatedAt: admin.updatedAt,
        }),
      );
    }
    return true;
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
    if (RESERVED_USERNAMES.has(input.username.toLowerCase())) {
      throw AppError.invalid(`The username ${input.username} is reserved.`, { username: ['is reserved'] });
    }
    requireAcceptable('password', input.username, input.password);
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
        passwordChangedAt: now,
        mustChangePassword: false,
      };
      await ctx.users.insert(user);
      return user;
    });
  }

  /** An admin's change of a user; a new password ends that user's sessions. */
  async update(username: string, change: { password?: string; role?: LocalRole }): Promise<UserRecord> {
    if (change.password !== undefined) requireAcceptable('password', username, change.password);
    const passwordHash = change.password !== undefined ? await hashPassword(change.password) : undefined;
    return this.uow.write(async (ctx) => {
      const user = await ctx.users.get(username);
      if (!user) throw AppError.notFound(`User ${username} was not found.`);
      if (user.role === 'admin' && change.role === 'developer') {
        if ((await ctx.users.countByRole('admin')) <= 1) throw AppError.conflict('The last admin cannot be demoted.');
      }
      const now = this.clock.nowMicros();
      await ctx.users.update(username, {
        ...(passwordHash !== undefined ? { password: { hash: passwordHash, changedAt: now, mustChange: false } } : {}),
        ...(change.role !== undefined ? { role: change.role } : {}),
        updatedAt: now,
      });
      // A new password or role ends what the old one granted, personal access tokens included.
      if (passwordHash !== undefined || (change.role !== undefined && change.role !== user.role)) {
        await ctx.tokens.revokeAllOf(username, now);
      }
      return (await ctx.users.get(username)) as UserRecord;
    });
  }

  /**
   * A user's change of their own password, with the current one (400 when it is wrong). Ends the
   * user's other sessions; the caller keeps its own by remembering the returned record.
   */
  async changeOwnPassword(username: string, currentPassword: string, newPassword: string): Promise<UserRecord> {
    const user = await this.verifyCredentials(username, currentPassword);
    if (!user) {
      throw AppError.invalid('The current password is wrong.', { currentPassword: ['is wrong'] });
    }
    requireAcceptable('newPassword', username, newPassword);
    if (newPassword === currentPassword) {
      throw AppError.invalid('The new password is not acceptable.', {
        newPassword: ['must differ from the current one'],
      });
    }
    const passwordHash = await hashPassword(newPassword);
    return this.uow.write(async (ctx) => {
      const now = this.clock.nowMicros();
      const current = await ctx.users.get(username);
      // Changed or re-created meanwhile: the check above no longer holds.
      if (!current || current.passwordHash !== user.passwordHash) {
        throw AppError.conflict('The password was changed meanwhile; sign in again.');
      }
      await ctx.users.update(username, {
        password: { hash: passwordHash, changedAt: now, mustChange: false },
        updatedAt: now,
      });
      await ctx.tokens.revokeAllOf(username, now);
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
      await ctx.tokens.revokeAllOf(username, this.clock.nowMicros());
    });
  }
}
