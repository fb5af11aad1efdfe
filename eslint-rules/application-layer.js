import path from 'node:path';

/**
 * The server's application layer (commands, queries and what they use) and core/ know no transport
 * and no database driver (docs/architecture.md, "Layers of the server").
 *
 * Which files that is goes by folder, not by name: every file of core/, and every file of a feature
 * folder but its face (index.ts) and its transport adapters: the routes (`*-routes.ts`), the RPC
 * handlers (`*-rpc.ts`) and the files TRANSPORT_ADAPTERS names. A new file is thus in the
 * application layer until it is named an adapter here, on purpose, in review.
 */

const SRC = 'packages/server/src/';

/** Files of features/ that speak a transport without a routes/rpc name, each for its reason. */
export const TRANSPORT_ADAPTERS = [
  // The session plugin, its cookie signer and @fastify/session's store over our sessions table.
  'auth/sessions/auth-plugin.ts',
  'auth/sessions/session-signer.ts',
  'auth/sessions/session-store.ts',
  // Sign-in providers: each turns a request into an identity and registers its own routes.
  'auth/providers/auth-provider.ts',
  'auth/providers/providers.ts',
  'auth/jwt/jwt-provider.ts',
  'auth/local/local-provider.ts',
  'auth/openid/openid-provider.ts',
  'auth/saml/saml-auth-provider.ts',
  // gRPC: Connect-ES, the native HTTP/2 path and the status every error becomes.
  'realtime/grpc-errors.ts',
  'realtime/grpc-gateway.ts',
  'realtime/native-calls.ts',
  'realtime/native-grpc.ts',
  'realtime/native-subscribe.ts',
  // A follower hands writes to its primary as they came: REST requests and CreateVersion calls.
  'regions/create-version-forwarding.ts',
  'regions/rest-forwarding.ts',
];

/** Packages (and Node modules) of the transports and of the database drivers. */
const FORBIDDEN_PACKAGES = [
  /^fastify$/,
  /^@fastify\//,
  /^@connectrpc\//,
  /^@grpc\//,
  /^(node:)?https?$/,
  /^(node:)?http2$/,
  /^(pg|better-sqlite3|kysely)$/,
];

/** The path of a file below packages/server/src/, or null for a file elsewhere. */
function serverPath(filename) {
  const normal = filename.split(path.sep).join('/');
  const at = normal.lastIndexOf(`/${SRC}`);
  return at === -1 ? null : normal.slice(at + SRC.length + 1);
}

/** 'application', 'transport' (routes, RPC handlers, adapters), 'face' (index.ts) or null (neither). */
export function layerOf(filename) {
  const file = serverPath(filename);
  if (file === null || /\.test\.ts$/.test(file) || file.startsWith('test-support/')) return null;
  if (file.startsWith('core/')) return 'application';
  if (!file.startsWith('features/')) return null;
  const inFeature = file.slice('features/'.length);
  if (/^[^/]+\/index\.ts$/.test(inFeature)) return 'face';
  if (/-(routes|rpc)\.ts$/.test(inFeature) || TRANSPORT_ADAPTERS.includes(inFeature)) return 'transport';
  return 'application';
}

export const applicationLayer = {
  meta: {
    type: 'problem',
    docs: { description: 'Commands, queries and core/ import no transport, no driver and no transport file.' },
    schema: [],
    messages: {
      transport:
        '{{file}} is in the application layer (commands, queries, core/): it knows neither a transport nor a database driver, so "{{source}}" stays out. Take plain data from the caller; or, if this file is a transport adapter, name it in TRANSPORT_ADAPTERS (eslint-rules/application-layer.js).',
    },
  },
  create(context) {
    if (layerOf(context.filename) !== 'application') return {};
    const file = serverPath(context.filename);
    const refused = (source) => {
      if (FORBIDDEN_PACKAGES.some((pattern) => pattern.test(source))) return true;
      if (!source.startsWith('.')) return false;
      const target = path.resolve(path.dirname(context.filename), source).replace(/\.js$/, '.ts');
      return layerOf(target) === 'transport';
    };
    const check = (node) => {
      const source = node?.type === 'Literal' && typeof node.value === 'string' ? node.value : null;
      if (source !== null && refused(source)) {
        context.report({ node, messageId: 'transport', data: { file, source } });
      }
    };
    return {
      // Type imports too: a command that takes a FastifyRequest is tied to Fastify all the same.
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportType: (node) => check(node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
    };
  },
};
