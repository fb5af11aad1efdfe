import { randomBytes } from 'node:crypto';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { problems } from '../../../platform/http/schemas.js';
import { safeReturnUrl } from '../sessions/return-url.js';
import type { SamlServiceProvider } from './saml-provider.js';

export interface SamlRoutesOptions {
  sp: SamlServiceProvider;
}

/** The address the browser used; the ACS URL in our requests and metadata follows it. */
function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * GET /auth/login, POST {ModulePath}/Acs, GET {ModulePath}/Metadata, GET|POST {ModulePath}/Logout.
 * Form bodies are parsed only inside this plugin: everything else (and /api) stays JSON-only.
 */
export const samlRoutes: FastifyPluginAsyncTypebox<SamlRoutesOptions> = async (app, { sp }) => {
  await app.register(fastifyFormbody, { bodyLimit: 512 * 1024 });
  const tags = ['auth'];
  const modulePath = sp.settings.spOptionsModulePath;

  app.get(
    '/auth/login',
    {
      // It stores the request's id (replay protection): a follower forwards it (docs/regions.md).
      config: { policy: 'public', writes: true },
      schema: {
        tags,
        summary: 'Sign in at the SAML identity provider',
        querystring: Type.Object({ returnUrl: Type.Optional(Type.String({ maxLength: 2048 })) }),
        response: { ...problems(400, 503) },
      },
    },
    async (request, reply) => {
      const returnUrl = safeReturnUrl(request.query.returnUrl);
      const saml = sp.saml(originOf(request));
      if (sp.identityProvider.singleSignOnBinding === 'HTTP-Redirect') {
        return reply.redirect(await saml.getAuthorizeUrlAsync(returnUrl, undefined, {}), 302);
      }
      // HTTP-POST binding: a form the browser submits to the identity provider.
      const message = await saml.getAuthorizeMessageAsync(returnUrl);
      const nonce = randomBytes(16).toString('base64');
      const inputs = Object.entries(message)
        .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(String(value))}">`)
        .join('');
      const action = escapeHtml(sp.identityProvider.singleSignOnUrl);
      return reply
        .header('content-security-policy', `default-src 'none'; script-src 'nonce-${nonce}'; form-action ${action}`)
        .type('text/html; charset=utf-8')
        .send(
          `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Signing in…</title></head><body>` +
            `<form method="post" action="${action}">${inputs}<noscript><button type="submit">Continue</button></noscript></form>` +
            `<script nonce="${nonce}">document.forms[0].submit();</script></body></html>`,
        );
    },
  );

  app.post(
    `${modulePath}/Acs`,
    {
      config: { policy: 'public', crossOrigin: true },
      schema: {
        tags,
        summary: 'Assertion consumer service: the identity provider posts the SAML response here',
        body: Type.Object({
          SAMLResponse: Type.Optional(Type.String()),
          RelayState: Type.Optional(Type.String()),
        }),
        response: { ...problems(400, 401, 415, 503) },
      },
    },
    async (request, reply) => {
      const accepted = await sp.acceptResponse(originOf(request), request.body.SAMLResponse);
      // A fresh session id at every sign-in: no session fixation.
      await request.session.regenerate();
      request.session.claims = accepted.claims;
      request.session.samlSubject = accepted.subject;
      return reply.redirect(safeReturnUrl(request.body.RelayState), 302);
    },
  );

  app.get(
    `${modulePath}/Metadata`,
    { config: { policy: 'public' }, schema: { tags, summary: 'SAML service provider metadata' } },
    async (request, reply) => {
      const xml = sp.saml(originOf(request)).generateServiceProviderMetadata(null, null);
      return reply.type('application/samlmetadata+xml; charset=utf-8').send(xml);
    },
  );

  const logout = async (request: FastifyRequest, fromIdentityProvider: boolean): Promise<string> => {
    const subject = request.session.samlSubject;
    await request.session.destroy();
    const slo = sp.identityProvider.singleLogoutUrl;
    // The identity provider's answer to our logout request (or its own request) ends here.
    if (fromIdentityProvider || !subject || !slo) return '/';
    return sp.saml(originOf(request)).getLogoutUrlAsync(
      {
        issuer: sp.settings.identityProviderEntityId,
        nameID: subject.nameID,
        nameIDFormat: subject.nameIDFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
        ...(subject.sessionIndex ? { sessionIndex: subject.sessionIndex } : {}),
      },
      '/',
      {},
    );
  };
  const fromIdp = (value: unknown): boolean => {
    const fields = (value ?? {}) as Record<string, unknown>;
    return typeof fields.SAMLResponse === 'string' || typeof fields.SAMLRequest === 'string';
  };

  app.get(
    `${modulePath}/Logout`,
    {
      config: { policy: 'public', writes: true },
      schema: { tags, summary: 'Sign out (and at the identity provider)' },
    },
    async (request, reply) => reply.redirect(await logout(request, fromIdp(request.query)), 302),
  );
  app.post(
    `${modulePath}/Logout`,
    {
      config: { policy: 'public', crossOrigin: true },
      schema: { tags, summary: 'Sign out (and at the identity provider)' },
    },
    async (request, reply) => reply.redirect(await logout(request, fromIdp(request.body)), 302),
  );
};
