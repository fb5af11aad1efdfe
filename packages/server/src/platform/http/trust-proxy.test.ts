import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

describe('Server:TrustProxy', () => {
  let server: TestServer | undefined;
  afterEach(() => server?.close());

  const signInBehindTlsProxy = async (args: string[]) => {
    server = await startTestServer({ args });
    const res = await server
      .client()
      .post(
        '/auth/login',
        { username: 'admin', password: ADMIN_PASSWORD },
        { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'config.example.com' } },
      );
    expect(res.status).toBe(200);
    return res.headers.get('set-cookie') ?? '';
  };

  it('believes X-Forwarded-Proto from a trusted proxy: the session cookie is Secure', async () => {
    expect(await signInBehindTlsProxy(['--Server:TrustProxy:0=loopback'])).toMatch(/;\s*Secure/i);
  });

  it('ignores forwarded headers by default', async () => {
    expect(await signInBehindTlsProxy([])).not.toMatch(/;\s*Secure/i);
  });
});
