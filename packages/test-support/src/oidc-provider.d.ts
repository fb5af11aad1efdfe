// oidc-provider ships no types; this covers the little the tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export interface Configuration {
    clients?: Array<Record<string, unknown>>;
    findAccount?: (ctx: unknown, sub: string) => Promise<Account | undefined>;
    [key: string]: unknown;
  }

  // The package's own shape: its Provider is the default export.
  // eslint-disable-next-line no-restricted-syntax
  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
