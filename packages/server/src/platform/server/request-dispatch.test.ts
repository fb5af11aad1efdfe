import http2 from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { createOnePortListener, type OnePortListener } from './one-port-listener.js';
import { RequestDispatch } from './request-dispatch.js';

const listeners: OnePortListener[] = [];
const clients: http2.ClientHttp2Session[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(listeners.splice(0).map((l) => l.close({ timeoutMs: 1000 })));
});

/** A dispatch whose main handler and two protocols each answer with their name. */
function dispatchOf(): { dispatch: RequestDispatch; sessions: number[] } {
  const sessions = [0, 0];
  const dispatch = new RequestDispatch((_req, res) => res.end('main'));
  dispatch.register({
    claimStream: (stream, headers) => {
      if (headers['x-raw'] !== 'yes') return false;
      stream.respond({ ':status': 200 });
      stream.end('raw');
      return true;
    },
    claimRequest: (req, res) => {
      if (!req.url?.startsWith('/first/')) return false;
      res.end('first');
      return true;
    },
    onHttp2Session: () => void sessions[0]!++,
  });
  dispatch.register({
    // Asks after the first: a path both would take is the first's.
    claimRequest: (req, res) => {
      if (!req.url?.startsWith('/first/') && !req.url?.startsWith('/second/')) return false;
      res.end('second');
      return true;
    },
    onHttp2Session: () => void sessions[1]!++,
  });
  return { dispatch, sessions };
}

async function listen(dispatch: RequestDispatch): Promise<number> {
  const listener = createOnePortListener({
    handler: dispatch.handler,
    onHttp2Stream: dispatch.onHttp2Stream,
    onHttp2Session: dispatch.onHttp2Session,
  });
  listeners.push(listener);
  return (await listener.listen(0, '127.0.0.1')).port;
}

function h2(port: number, path: string, headers: http2.OutgoingHttpHeaders = {}): Promise<string> {
  const client = http2.connect(`http://127.0.0.1:${port}`);
  clients.push(client);
  return new Promise((resolve, reject) => {
    const request = client.request({ ':path': path, ...headers });
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

describe('request dispatch', () => {
  it('gives each request to the first protocol that claims it, and the rest to the main handler', async () => {
    const port = await listen(dispatchOf().dispatch);
    const http1 = async (path: string) => (await fetch(`http://127.0.0.1:${port}${path}`)).text();
    expect(await http1('/first/x')).toBe('first');
    expect(await http1('/second/x')).toBe('second');
    expect(await http1('/api/services')).toBe('main');
    expect(await h2(port, '/first/x')).toBe('first');
    expect(await h2(port, '/api/services')).toBe('main');
  });

  it('lets a protocol claim a raw HTTP/2 stream before any request is made of it', async () => {
    const { dispatch, sessions } = dispatchOf();
    const port = await listen(dispatch);
    expect(await h2(port, '/first/x', { 'x-raw': 'yes' })).toBe('raw');
    expect(await h2(port, '/other', { 'x-raw': 'no' })).toBe('main');
    // Each protocol saw both HTTP/2 connections.
    expect(sessions).toEqual([2, 2]);
  });
});
