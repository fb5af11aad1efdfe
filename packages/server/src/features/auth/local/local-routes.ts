import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { UserRecord } from '../../../core/index.js';
import { microsToIso } from '../../../platform/clock.js';
import { AppError } from '../../../platform/errors.js';
import { problems, Timestamp } from '../../../platform/http/schemas.js';
import { identityOf } from '../sessions/auth-plugin.js';
import { meOf } from '../auth-routes.js';
import { LocalAccounts } from './local-accounts.js';
import { MAX_PASSWORD_LENGTH } from './password-policy.js';
import type { SignInThrottle } from './sign-in-throttle.js';

const meRef = Type.Unsafe<ReturnType<typeof meOf>>({ $ref: 'Me#' });

export interface LocalRoutesOptions {
  local: LocalAccounts;
  throttle: SignInThrottle;
}

/** Ties the request's session to the account as it is now. */
function remember(request: FastifyRequest, user: UserRecord): void {
  Object.assign(request.session, LocalAccounts.signInOf(user));
}

async function refuseWhileThrottled(throttle: SignInThrottle, username: string, address: string): Promise<void> {
  const wait = await throttle.retryAfterSeconds(username, address);
  if (wait > 0) {
    throw new AppError('RESOURCE_EXHAUSTED', 'Too many failed sign-ins. Try again later.', undefined, {
      metadata: { retryAfterMs: wait * 1000 },
    });
  }
}

/** The Local provider's sign-in: POST /auth/login and POST /auth/logout. */
export const localSignInRoutes: FastifyPluginAsyncTypebox<LocalRoutesOptions> = async (app, options) => {
  const tags = ['auth'];
  const { local, throttle } = options;

  app.post(
    '/auth/login',
    {
      config: { policy: 'public' },
      schema: {
        tags,
        summary: 'Sign in with a Local account',
        body: Type.Object({
          username: Type.String({ minLength: 1, maxLength: 200 }),
          password: Type.String({ maxLength: MAX_PASSWORD_LENGTH }),
        }),
        response: { 200: meRef, ...problems(400, 401, 415, 429) },
      },
    },
    async (request) => {
      const { username, password } = request.body;
      await refuseWhileThrottled(throttle, username, request.ip);
      const user = await local.verifyCredentials(username, password);
      if (!user) {
        await throttle.failed(username, request.ip);
        request.log.info({ username }, 'failed sign-in');
        throw AppError.unauthenticated('The username or password is wrong.');
      }
      await throttle.succeeded(username, request.ip);
      // A fresh session id at every sign-in: no session fixation.
      await request.session.regenerate();
      remember(request, user);
      return meOf(local.identityOf(user));
    },
  );

  app.post(
    '/auth/logout',
    { config: { policy: 'public' }, schema: { tags, summary: 'Sign out', response: { 204: Type.Null() } } },
    async (request, reply) => {
      await request.session.destroy();
      return reply.code(204).send(null);
    },
  );
};

const UserSchema = Type.Object(
  { username: Type.String(), role: Type.String(), createdAt: Timestamp, updatedAt: Timestamp },
  { $id: 'User' },
);
const userRef = Type.Unsafe<ReturnType<typeof userOf>>({ $ref: 'User#' });
const Role = Type.Union([Type.Literal('admin'), Type.Literal('developer')]);
const Username = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\s/]+$' });
// Length, the username and common passwords are checked by passwordProblems, with field messages.
const Password = Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH });

function userOf(user: UserRecord) {
  return {
    username: user.username,
    role: user.role,
    createdAt: microsToIso(user.createdAt),
    updatedAt: microsToIso(user.updatedAt),
  };
}

/** /api/users: Local accounts, only while the Local provider is active (else these paths do not exist). */
export const userRoutes: FastifyPluginAsyncTypebox<LocalRoutesOptions> = async (app, { local, throttle }) => {
  app.addSchema(UserSchema);
  const tags = ['users'];
  const params = Type.Object({ username: Username });

  app.put(
    '/api/users/me/password',
    {
      config: { policy: 'user', changesAccess: true },
      schema: {
        tags,
        summary: 'Change your own password',
        description:
          'Needs the current password. Ends your other sessions; this one stays signed in. A new password has at least 12 characters, differs from the username and is not a common password.',
        body: Type.Object({ currentPassword: Password, newPassword: Password }),
        response: { 204: Type.Null(), ...problems(400, 401, 409, 429) },
      },
    },
    async (request, reply) => {
      const username = identityOf(request).id;
      // A wrong current password counts as a failed sign-in: a stolen session cannot guess it.
      await refuseWhileThrottled(throttle, username, request.ip);
      let user: UserRecord;
      try {
        user = await local.changeOwnPassword(username, request.body.currentPassword, request.body.newPassword);
      } catch (error) {
        if (error instanceof AppError && error.fieldErrors?.currentPassword)
          await throttle.failed(username, request.ip);
        throw error;
      }
      remember(request, user);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/users',
    { config: { policy: 'canAll' }, schema: { tags, response: { 200: Type.Array(userRef), ...problems(401, 403) } } },
    async () => (await local.list()).map(userOf),
  );

  app.get(
    '/api/users/:username',
    {
      config: { policy: 'canAll' },
      schema: { tags, params, response: { 200: userRef, ...problems(400, 401, 403, 404) } },
    },
    async (request) => userOf(await local.get(request.params.username)),
  );

  app.post(
    '/api/users',
    {
      config: { policy: 'canAll', changesAccess: true },
      schema: {
        tags,
        body: Type.Object({ username: Username, password: Password, role: Role }),
        response: { 201: userRef, ...problems(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(userOf(await local.create(request.body))),
  );

  app.put(
    '/api/users/:username',
    {
      config: { policy: 'canAll', changesAccess: true },
      schema: {
        tags,
        params,
        body: Type.Object({ password: Type.Optional(Password), role: Type.Optional(Role) }),
        response: { 200: userRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const user = await local.update(request.params.username, request.body);
      // An admin who sets their own password here keeps this session; all others end.
      if (request.body.password !== undefined && user.username === identityOf(request).id) {
        remember(request, user);
      }
      return userOf(user);
    },
  );

  app.delete(
    '/api/users/:username',
    {
      config: { policy: 'canAll', changesAccess: true },
      schema: { tags, params, response: { 204: Type.Null(), ...problems(400, 401, 403, 404, 409) } },
    },
    async (request, reply) => {
      await local.delete(identityOf(request), request.params.username);
      return reply.code(204).send(null);
    },
  );
};
