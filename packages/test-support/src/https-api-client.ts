import https from 'node:https';
import type { ConnectionOptions } from 'node:tls';
import { ADMIN_PASSWORD, type ApiResponse, type RequestOptions } from './test-server.js';

/**
 * The ApiClient of test-server.ts for a server with a self-signed certificate: HTTPS (ALPN
 * http/1.1) trusting `ca`, keeping the session cookie. Global fetch cannot be given a CA without a
 * dispatcher of its own bundled undici, so this one speaks node:https.
 */
export class HttpsApiClient {
  private cookie: string | null = null;
  private readonly agent: https.Agent;

  constructor(
    readonly baseUrl: string,
    ca: Buffer,
  ) {
    // https.AgentOptions does not declare ALPNProtocols, though the agent passes it on to tls.connect.
    const options: https.AgentOptions & Pick<ConnectionOptions, 'ALPNProtocols'> = {
      ca,
      keepAlive: true,
      ALPNProtocols: ['http/1.1'],
    };
    this.agent = new https.Agent(options);
  }

  request<T = any>(method: string, url: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
    }
    if (this.cookie) headers.cookie = this.cookie;
    return new Promise((resolve, reject) => {
      const req = https.request(new URL(url, this.baseUrl), { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const v of Array.isArray(value) ? value : value !== undefined ? [value] : [])
              responseHeaders.append(name, v);
          }
          for (const c of responseHeaders.getSetCookie()) {
            const pair = c.split(';')[0] ?? '';
            this.cookie = /=$/.test(pair) || /Expires=Thu, 01 Jan 1970/i.test(c) ? null : pair;
          }
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          if ((responseHeaders.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
          resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: parsed as T, text });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  get<T = any>(url: string, options?: RequestOptions) {
    return this.request<T>('GET', url, options);
  }
  post<T = any>(url: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', url, { ...options, body });
  }
  put<T = any>(url: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', url, { ...options, body });
  }
  delete<T = any>(url: string, options?: RequestOptions) {
    return this.request<T>('DELETE', url, options);
  }

  async login(username = 'admin', password = ADMIN_PASSWORD): Promise<this> {
    const res = await this.post('/auth/login', { username, password });
    if (res.status !== 200) throw new Error(`sign-in as ${username} failed: ${res.status} ${res.text}`);
    return this;
  }

  /** Closes the kept-alive connections, so the server's graceful close does not wait for them. */
  close(): void {
    this.agent.destroy();
  }
}
