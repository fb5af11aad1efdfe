/**
 * A browser for sign-in flows across the app and an identity provider: it follows no redirect by
 * itself and keeps every cookie of both, like one browser.
 */

export interface BrowserResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The Location header, resolved against the request URL. */
  readonly location: string | null;
  readonly text: string;
}

/** Follows nothing by itself and keeps every cookie of the app and the provider, like one browser. */
export class Browser {
  private readonly jar = new Map<string, string>();

  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  setCookie(name: string, value: string): void {
    this.jar.set(name, value);
  }

  async request(method: string, url: string, body?: URLSearchParams | object): Promise<BrowserResponse> {
    const headers: Record<string, string> = {};
    if (this.jar.size > 0) headers.cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    let payload: string | undefined;
    if (body instanceof URLSearchParams) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = body.toString();
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const response = await fetch(url, { method, headers, body: payload, redirect: 'manual' });
    for (const setCookie of response.headers.getSetCookie()) {
      const pair = setCookie.split(';')[0] ?? '';
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1);
      const expired = value === '' || /expires=Thu, 01 Jan 1970/i.test(setCookie) || /max-age=0\b/i.test(setCookie);
      if (expired) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      headers: response.headers,
      location: location === null ? null : new URL(location, url).href,
      text: await response.text(),
    };
  }

  get(url: string): Promise<BrowserResponse> {
    return this.request('GET', url);
  }
}
