import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from './errors.js';
import { CliUser } from './test-support/run-cli.js';

/** A plain HTTP server on a loopback port, answering every request with `answer`. */
async function listen(answer: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const close = (server: Server | undefined) =>
  new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

/**
 * What stands between the CLI and a server: a proxy that redirects or fails with a page of its own,
 * or nothing listening at all. The CLI says what happened, exits 1, and never takes its credential
 * anywhere else.
 */
describe('the CLI (built binary) when the server is not what answers', () => {
  let elsewhere: { server: Server; url: string };
  let proxy: { server: Server; url: string };
  const reachedElsewhere: IncomingMessage[] = [];

  beforeAll(async () => {
    elsewhere = await listen((request, response) => {
      reachedElsewhere.push(request);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"entities":[],"nextPageToken":""}');
    });
    proxy = await listen((request, response) => {
      if (request.url?.startsWith('/api/services/search')) {
        response.writeHead(307, { location: `${elsewhere.url}/api/services/search` }).end();
      } else {
        response.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad gateway</body></html>');
      }
    });
  });
  afterAll(async () => {
    await close(proxy?.server);
    await close(elsewhere?.server);
  });

  it('does not follow a redirect, so the token stays with the server it was given for', async () => {
    const user = new CliUser(proxy.url, { REALTIME_CONFIG_TOKEN: 'secret-token' });
    const result = await user.run(['services']);
    expect(result.code).toBe(EXIT.failure);
    expect(result.stderr).toContain('The server answered 307.');
    expect(reachedElsewhere).toHaveLength(0);
  });

  it('reports an answer without problem details by its status', async () => {
    const user = new CliUser(proxy.url, { REALTIME_CONFIG_TOKEN: 'secret-token' });
    const result = await user.run(['versions', '0b5f2a8e-4c1d-4e7a-9f00-5d2c6e1a7b3c']);
    expect(result.code).toBe(EXIT.failure);
    expect(result.stderr).toBe('error: The server answered 502.\n');
    expect(result.stdout).toBe('');
  });

  it('says which server it cannot reach', async () => {
    const closed = await listen(() => undefined);
    await close(closed.server);
    const result = await new CliUser(closed.url).run(['services']);
    expect(result.code).toBe(EXIT.failure);
    expect(result.stderr).toMatch(new RegExp(`^error: Cannot reach ${closed.url}: .*ECONNREFUSED`));
  });
});
