import { DOMParser } from '@xmldom/xmldom';
import xpath from 'xpath';

const METADATA_KEY = 'Authentication:Saml:IdentityProviderMetadataUrl';
const ENTITY_KEY = 'Authentication:Saml:IdentityProviderEntityId';

const BINDING_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const BINDING_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

const select = xpath.useNamespaces({
  md: 'urn:oasis:names:tc:SAML:2.0:metadata',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
});

/** What the service provider needs from the identity provider's metadata. */
export interface IdentityProviderMetadata {
  readonly entityId: string;
  /** PEM certificates whose keys may sign responses (key rollover: several). */
  readonly signingCertificates: readonly string[];
  readonly singleSignOnUrl: string;
  readonly singleSignOnBinding: 'HTTP-Redirect' | 'HTTP-POST';
  readonly singleLogoutUrl: string | null;
}

/** Downloads the metadata at startup; any failure names the setting to look at. */
export async function fetchIdentityProviderMetadata(
  url: string,
  entityId: string,
  fetchImpl: typeof fetch = fetch,
): Promise<IdentityProviderMetadata> {
  let xml: string;
  try {
    const response = await fetchImpl(url, { signal: AbortSignal.timeout(10_000), redirect: 'follow' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    xml = await response.text();
  } catch (error) {
    throw new Error(
      `${METADATA_KEY}: could not download the identity provider metadata from ${url}: ${messageOf(error)}`,
      {
        cause: error,
      },
    );
  }
  return parseIdentityProviderMetadata(xml, entityId, url);
}

export function parseIdentityProviderMetadata(
  xml: string,
  entityId: string,
  url = 'the metadata',
): IdentityProviderMetadata {
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: {
      warning: () => undefined,
      error: (message: string) => errors.push(message),
      fatalError: (message: string) => errors.push(message),
    },
  }).parseFromString(xml, 'text/xml');
  if (errors.length > 0 || !doc.documentElement) {
    throw new Error(`${METADATA_KEY}: ${url} is not XML metadata: ${errors[0] ?? 'empty document'}`);
  }

  // Either a single EntityDescriptor or an EntitiesDescriptor (federation) holding many.
  const entities = select('//md:EntityDescriptor', doc as unknown as Node) as Element[];
  const entity = entities.find((candidate) => candidate.getAttribute('entityID') === entityId);
  if (!entity) {
    const found = entities.map((candidate) => candidate.getAttribute('entityID')).filter(Boolean);
    throw new Error(
      `${ENTITY_KEY}: the metadata at ${url} has no EntityDescriptor with entityID ${JSON.stringify(entityId)}` +
        ` (found: ${found.length > 0 ? found.map((id) => JSON.stringify(id)).join(', ') : 'none'}). The value must match exactly.`,
    );
  }
  const idp = (select('md:IDPSSODescriptor', entity) as Element[])[0];
  if (!idp)
    throw new Error(
      `${ENTITY_KEY}: ${JSON.stringify(entityId)} in ${url} is not an identity provider (no IDPSSODescriptor).`,
    );

  const keyDescriptors = select('md:KeyDescriptor', idp) as Element[];
  const signingCertificates = keyDescriptors
    .filter((descriptor) => {
      const use = descriptor.getAttribute('use');
      return !use || use === 'signing';
    })
    .flatMap((descriptor) => select('.//ds:X509Certificate', descriptor) as Element[])
    .map((certificate) => toPem(certificate.textContent ?? ''))
    .filter((pem): pem is string => pem !== null);
  if (signingCertificates.length === 0) {
    throw new Error(`${METADATA_KEY}: the metadata of ${JSON.stringify(entityId)} has no signing certificate.`);
  }

  const endpoint = (element: string, binding: string): string | null => {
    const found = (select(`md:${element}`, idp) as Element[]).find((e) => e.getAttribute('Binding') === binding);
    return found?.getAttribute('Location') || null;
  };
  const redirectSso = endpoint('SingleSignOnService', BINDING_REDIRECT);
  const postSso = endpoint('SingleSignOnService', BINDING_POST);
  const singleSignOnUrl = redirectSso ?? postSso;
  if (!singleSignOnUrl) {
    throw new Error(
      `${METADATA_KEY}: the metadata of ${JSON.stringify(entityId)} has no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding.`,
    );
  }
  return {
    entityId,
    signingCertificates,
    singleSignOnUrl,
    singleSignOnBinding: redirectSso ? 'HTTP-Redirect' : 'HTTP-POST',
    singleLogoutUrl: endpoint('SingleLogoutService', BINDING_REDIRECT) ?? endpoint('SingleLogoutService', BINDING_POST),
  };
}

function toPem(base64: string): string | null {
  const body = base64.replace(/\s+/g, '');
  if (body === '') return null;
  const lines = body.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
