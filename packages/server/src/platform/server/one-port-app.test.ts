import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSelfSignedCertificate,
  type SelfSignedCertificate,
} from '@realtime-config/test-support/self-signed-certificate';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** HTTP version the server answered with. */
  version: string;
  /** Negotiated ALPN protocol, or false / undefined without TLS. */
  alpn: string | false | null | undefined;
}

interface Call {
  method: string;
  path: string;
  body?: unknown;
  cookie?: string;
}

const LOGIN: Call = { method: 'POST', path: '/auth/login', body: { username: 'admin', password: ADMIN_PASSWORD } };

function encode(call: Call): { headers: Record<string, string>; payload?: string } {
  const headers: Record<string, string> = {};
  if (call.cookie) headers.cookie = call.cookie;
  if (call.body === undefined) return { headers };
  headers['content-type'] = 'application/json';
  return { headers, payload: JSON.stringify(call.body) };
}

/** One HTTP/1.1 request on a fresh connection, plain or TLS with the given ALPN list. */
function http1(port: number, call: Call, tls?: { ca: Buffer; alpn: string[] }): Promise<Answer> {
  const { headers, payload } = encode(call);
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, method: call.method, path: call.path, headers, agent: false as const };
    const onResponse = (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
          version: res.httpVersion,
          alpn: (res.socket as TLSSocket | null)?.alpnProtocol,
        }),
      );
      res.on('error', reject);
    };
    // https.RequestOptions does not declare ALPNProtocols, though https passes it on to tls.connect.
    const tlsOptions: https.RequestOptions & Pick<ConnectionOptions, 'ALPNProtocols'> = {
      ...options,
      ca: tls?.ca,
      ALPNProtocols: tls?.alpn,
    };
    const req = tls ? https.request(tlsOptions, onResponse) : http.request(options, onResponse);
    req.on('error', reject);
    req.end(payload);
  });
}

/** One request on an open HTTP/2 session. */
function h2(session: http2.ClientHttp2Session, call: Call): Promise<Answer> {
  const { headers, payload } = encode(call);
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': call.method, ':path': call.path, ...headers });
    let head: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      head = h;
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () =>
      resolve({
        status: Number(head[':status']),
        headers: head,
        text: Buffer.concat(chunks).toString('utf8'),
        version: '2.0',
        alpn: session.alpnProtocol,
      }),
    );
    stream.on('error', reject);
    stream.end(payload);
  });
}

function connectH2(
  authority: string,
  options: http2.SecureClientSessionOptions = {},
): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(authority, options);
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

function closeH2(session: http2.ClientHttp2Session): Promise<void> {
  return new Promise((resolve) => session.close(() => resolve()));
}

function setCookies(answer: Answer): string[] {
  const value = answer.headers['set-cookie'];
  return Array.isArray(value) ? value : value ? [value] : [];
}

/** Signs in and returns the cookie pair to send back, checking the cookie's attributes. */
function sessionCookie(answer: Answer, secure: boolean): string {
  expect(answer.status).toBe(200);
  const cookies = setCookies(answer);
  expect(cookies).toHaveLength(1);
  const cookie = cookies[0] ?? '';
  expect(cookie).toMatch(/^rc_session=/);
  expect(cookie).toMatch(/;\s*HttpOnly/i);
  expect(cookie).toMatch(/;\s*SameSite=Lax/i);
  if (secure) expect(cookie).toMatch(/;\s*Secure/i);
  else expect(cookie).not.toMatch(/;\s*Secure/i);
  return cookie.split(';')[0] ?? '';
}

/** The same REST conversation over any transport: sign in, who am I, search services. */
async function converse(send: (call: Call) => Promise<Answer>, secure: boolean) {
  const anonymous = await send({ method: 'GET', path: '/api/auth/me' });
  expect(anonymous.status).toBe(401);
  expect(String(anonymous.headers['content-type'])).toContain('application/problem+json');

  const login = await send(LOGIN);
  expect(JSON.parse(login.text)).toMatchObject({
    id: 'admin',
    provider: 'local',
    policies: ['canAll', 'canChange', 'canReveal'],
  });
  const cookie = sessionCookie(login, secure);

  const me = await send({ method: 'GET', path: '/api/auth/me', cookie });
  expect(me.status).toBe(200);
  expect(JSON.parse(me.text)).toEqual(JSON.parse(login.text));

  const search = await send({ method: 'POST', path: '/api/services/search', body: { name: 'one-port' }, cookie });
  expect(search.status).toBe(200);
  const page = JSON.parse(search.text) as { entities: Array<{ name: string }>; nextPageToken: string };
  expect(page.nextPageToken).toBe('');
  return { login, me, search, page, cookie };
}

describe('the real app on one port, plain', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.admin();
    expect((await admin.post('/api/services', { name: 'one-port-plain' })).status).toBe(201);
  });
  afterAll(() => server?.close());

  it('answers REST over HTTP/1.1 (fetch)', async () => {
    const client = server.client();
    await client.login('admin', ADMIN_PASSWORD);
    const me = await client.get('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.id).toBe('admin');
    const search = await client.post('/api/services/search', { name: 'one-port' });
    expect(search.status).toBe(200);
    expect(search.body.entities.map((s: { name: string }) => s.name)).toEqual(['one-port-plain']);
  });

  it('answers REST over HTTP/1.1 (node:http), with a non-Secure cookie', async () => {
    const { login, page } = await converse((call) => http1(server.port, call), false);
    expect(login.version).toBe('1.1');
    expect(login.alpn).toBeUndefined();
    expect(page.entities.map((s) => s.name)).toEqual(['one-port-plain']);
  });

  it('answers REST over h2c with prior knowledge, sharing sessions and data with HTTP/1.1', async () => {
    const session = await connectH2(`http://127.0.0.1:${server.port}`);
    try {
      expect(session.encrypted).toBe(false);
      const { login, page, cookie } = await converse((call) => h2(session, call), false);
      expect(login.version).toBe('2.0');
      expect(page.entities.map((s) => s.name)).toEqual(['one-port-plain']);

      // A change made over HTTP/2 is seen over HTTP/1.1 with the same session cookie.
      const created = await h2(session, {
        method: 'POST',
        path: '/api/services',
        body: { name: 'one-port-h2c' },
        cookie,
      });
      expect(created.status).toBe(201);
      const seen = await http1(server.port, {
        method: 'POST',
        path: '/api/services/search',
        body: { name: 'one-port' },
        cookie,
      });
      expect(JSON.parse(seen.text).entities.map((s: { name: string }) => s.name)).toEqual([
        'one-port-plain',
        'one-port-h2c',
      ]);

      // Several streams at once on the one session.
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => h2(session, { method: 'GET', path: '/api/auth/me', cookie })),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);

      const logout = await h2(session, { method: 'POST', path: '/auth/logout', cookie });
      expect(logout.status).toBe(204);
      expect((await http1(server.port, { method: 'GET', path: '/auth/me', cookie })).status).toBe(401);
    } finally {
      await closeH2(session);
    }
  });

  it('answers errors over h2c as problem details, and /healthz without sign-in', async () => {
    const session = await connectH2(`http://127.0.0.1:${server.port}`);
    try {
      const missing = await h2(session, { method: 'GET', path: '/no/such/path' });
      expect(missing.status).toBe(404);
      expect(String(missing.headers['content-type'])).toContain('application/problem+json');
      expect(missing.text).not.toContain('    at ');
      expect((await h2(session, { method: 'GET', path: '/healthz' })).status).toBe(200);
    } finally {
      await closeH2(session);
    }
  });

  it('does not ask for HSTS over plain HTTP', async () => {
    const res = await http1(server.port, { method: 'GET', path: '/healthz' });
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('the real app on one port, TLS', () => {
  let certificate: SelfSignedCertificate;
  let ca: Buffer;
  let server: TestServer;

  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    ca = certificate.cert;
    server = await startTestServer({ args: certificate.serverArgs });
    expect(server.baseUrl).toMatch(/^https:/);
  });
  afterAll(async () => {
    await server?.close();
    certificate?.remove();
  });

  it('answers REST over TLS with ALPN h2, with a Secure cookie', async () => {
    const session = await connectH2(`https://127.0.0.1:${server.port}`, { ca });
    try {
      expect(session.encrypted).toBe(true);
      expect(session.alpnProtocol).toBe('h2');
      const { login, cookie } = await converse((call) => h2(session, call), true);
      expect(login.version).toBe('2.0');
      expect(login.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      const created = await h2(session, {
        method: 'POST',
        path: '/api/services',
        body: { name: 'one-port-tls-h2' },
        cookie,
      });
      expect(created.status).toBe(201);
      const search = await h2(session, {
        method: 'POST',
        path: '/api/services/search',
        body: { name: 'one-port-tls' },
        cookie,
      });
      expect(JSON.parse(search.text).entities.map((s: { name: string }) => s.name)).toContain('one-port-tls-h2');
    } finally {
      await closeH2(session);
    }
  });

  it('answers REST over TLS with ALPN http/1.1, with a Secure cookie', async () => {
    const send = (call: Call) => http1(server.port, call, { ca, alpn: ['http/1.1'] });
    const { login, me } = await converse(send, true);
    expect(login.alpn).toBe('http/1.1');
    expect(login.version).toBe('1.1');
    expect(me.alpn).toBe('http/1.1');
    expect(login.headers['strict-transport-security']).toMatch(/max-age=\d+/);
  });

  it('shares one session between TLS h2 and TLS http/1.1', async () => {
    const login = await http1(server.port, LOGIN, { ca, alpn: ['http/1.1'] });
    const cookie = sessionCookie(login, true);
    const session = await connectH2(`https://127.0.0.1:${server.port}`, { ca });
    try {
      const me = await h2(session, { method: 'GET', path: '/auth/me', cookie });
      expect(me.status).toBe(200);
      expect(JSON.parse(me.text).id).toBe('admin');
    } finally {
      await closeH2(session);
    }
  });

  it('refuses a client that does not trust the certificate', async () => {
    await expect(
      http1(server.port, { method: 'GET', path: '/healthz' }, { ca: Buffer.from(''), alpn: ['http/1.1'] }),
    ).rejects.toThrow();
    // The server keeps serving others.
    expect((await http1(server.port, { method: 'GET', path: '/healthz' }, { ca, alpn: ['http/1.1'] })).status).toBe(
      200,
    );
  });
});
