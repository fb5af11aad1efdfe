import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { Type } from 'typebox';
import { microsToIso } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { problems, Timestamp } from '../../platform/http/schemas.js';
import { identityOf } from './auth-plugin.js';
import { meOf } from './auth-routes.js';
import { MIN_PASSWORD_LENGTH, type LocalAccounts } from './local-accounts.js';
import type { UserRecord } from './user-store.js';

const meRef = Type.Unsafe<ReturnType<typeof meOf>>({ $ref: 'Me#' });

export interface LocalRoutesOptions {
  local: LocalAccounts;
  /** Failed sign-ins allowed per username and client address within the window. */
  maxFailedSignIns?: number;
}

/** The Local provider's sign-in: POST /auth/login and POST /auth/logout. */
export const localSignInRoutes: FastifyPluginAsyncTypebox<LocalRoutesOptions> = async (app, options) => {
  const tags = ['auth'];
  const local = options.local;

  const failedSignIns = new RateLimiterMemory({ points: options.maxFailedSignIns ?? 10, duration: 15 * 60 });

  app.post(
    '/auth/login',
    {
      config: { policy: 'public' },
      schema: {
        tags,
        summary: 'Sign in with a Local account',
        body: Type.Object({
          username: Type.String({ minLength: 1, maxLength: 200 }),
          password: Type.String({ maxLength: 1024 }),
        }),
        response: { 200: meRef, ...problems(400, 401, 415, 429) },
      },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      const limiterKey = `${username}\u0000${request.ip}`;
      const state = await failedSignIns.get(limiterKey);
      if (state && state.consumedPoints >= failedSignIns.points) {
        void reply.header('retry-after', Math.ceil(state.msBeforeNext / 1000));
        throw new AppError('RESOURCE_EXHAUSTED', 'Too many failed sign-ins. Try again later.');
      }
      const user = await local.verifyCredentials(username, password);
      if (!user) {
        await failedSignIns.penalty(limiterKey, 1);
        request.log.info({ username }, 'failed sign-in');
        throw AppError.unauthenticated('The username or password is wrong.');
      }
      await failedSignIns.delete(limiterKey);
      // A fresh session id at every sign-in: no session fixation.
      await request.session.regenerate();
      request.session.localUser = user.username;
      request.session.localUserCreatedAt = user.createdAt;
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
const Password = Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1024 });

function userOf(user: UserRecord) {
  return {
    username: user.username,
    role: user.role,
    createdAt: microsToIso(user.createdAt),
    updatedAt: microsToIso(user.updatedAt),
  };
}

/** /api/users: Local accounts, only while the Local provider is active (else these paths do not exist). */
export const userRoutes: FastifyPluginAsyncTypebox<{ local: LocalAccounts }> = async (app, { local }) => {
  app.addSchema(UserSchema);
  const tags = ['users'];
  const params = Type.Object({ username: Username });

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
      config: { policy: 'canAll' },
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
      config: { policy: 'canAll' },
      schema: {
        tags,
        params,
        body: Type.Object({ password: Type.Optional(Password), role: Type.Optional(Role) }),
        response: { 200: userRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => userOf(await local.update(request.params.username, request.body)),
  );

  app.delete(
    '/api/users/:username',
    {
      config: { policy: 'canAll' },
      schema: { tags, params, response: { 204: Type.Null(), ...problems(400, 401, 403, 404, 409) } },
    },
    async (request, reply) => {
      await local.delete(identityOf(request), request.params.username);
      return reply.code(204).send(null);
    },
  );
};
