import { pino, type Logger } from 'pino';

/**
 * The service's logger: JSON lines (pino), with every place a secret could appear redacted
 * (credentials in headers, cookies, passwords and hashes in bodies).
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    serializers: {
      // node-postgres attaches the client (with its connection settings) to some errors.
      err: (error: Error) => {
        const serialized = pino.stdSerializers.err(error) as Record<string, unknown>;
        delete serialized.client;
        return serialized;
      },
    },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.passwordHash',
        '*.currentPassword',
        '*.newPassword',
      ],
      censor: '[redacted]',
    },
  });
}
