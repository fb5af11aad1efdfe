import type { AppConfig } from '../platform/config/app-config.js';

/** The configured database for messages, without the URL (it may carry a password). */
export function describeDatabase(config: AppConfig): string {
  if (config.database.url) {
    const url = URL.canParse(config.database.url) ? new URL(config.database.url) : null;
    return url ? `PostgreSQL database ${url.pathname.slice(1)} on ${url.host}` : 'The PostgreSQL database';
  }
  return config.database.dataDir === 'memory://'
    ? 'The in-memory database'
    : `The embedded database in ${config.database.dataDir}`;
}
