import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface SelfSignedCertificate {
  readonly certPath: string;
  readonly keyPath: string;
  /** The certificate (PEM); trust it as the CA of the connection. */
  readonly cert: Buffer;
  /** `--Server:Tls:…` arguments that make the test server serve TLS with this certificate. */
  readonly serverArgs: readonly string[];
  remove(): void;
}

/**
 * A certificate for 127.0.0.1 and localhost, valid one day, made with the openssl CLI in a
 * temporary directory: the same kind of file an operator configures.
 */
export function createSelfSignedCertificate(): SelfSignedCertificate {
  const dir = mkdtempSync(path.join(tmpdir(), 'rc-cert-'));
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  return {
    certPath,
    keyPath,
    cert: readFileSync(certPath),
    serverArgs: [`--Server:Tls:CertificatePath=${certPath}`, `--Server:Tls:KeyPath=${keyPath}`],
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
