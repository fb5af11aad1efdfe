import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { valueTypeName } from '../../protocol.js';
import { Type } from 'typebox';
import type { VersionCaps } from '../../core/index.js';
import { hasPolicy, overridesAnswer, valueAnswer, type EntryRecord, type SecretCipher } from '../../core/index.js';
import { microsToIso } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import { ENTRY_LIMITS, planOutcomeOf, PlanOutcomeSchema, ValueTypeField } from '../entries/index.js';
import type { ConfigFileFormat } from './config-files.js';
import type { ConfigTransfer, ImportSource } from './config-transfer.js';
import { decodeUtf8, parseJsonFile } from './file-parsers.js';
import { importBodyLimit } from './import-body-limit.js';
import type { VersionCompare } from './version-compare.js';

const Flag = Type.Union([Type.Literal('true'), Type.Literal('false')]);
const Format = Type.Union([Type.Literal('json'), Type.Literal('yaml'), Type.Literal('env')]);
const TEXT_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain'];

const SideSchema = Nullable(
  Type.Object({
    id: Uuid,
    value: Nullable(Type.String()),
    valueType: ValueTypeField,
    valueTypeName: Type.String(),
    generation: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String()),
    groupName: Nullable(Type.String()),
    groupDescription: Nullable(Type.String()),
    enumDefinition: Nullable(Type.String()),
    schema: Nullable(
      Type.Object({}, { additionalProperties: true, description: 'The JSON Schema its value must meet' }),
    ),
    overrides: Type.Array(
      Type.Object({
        labels: Type.Record(Type.String(), Type.String()),
        rawValue: Nullable(Type.String()),
        redacted: Type.Optional(Type.Boolean()),
        fingerprint: Type.Optional(Nullable(Type.String())),
      }),
      { description: "Values for instances by label (docs/targeting.md); a secret's redacted" },
    ),
    updatedAt: Timestamp,
    isSecret: Type.Boolean(),
    redacted: Type.Optional(Type.Boolean()),
    fingerprint: Type.Optional(Nullable(Type.String())),
  }),
);
const VersionRefSchema = Type.Object({ serviceId: Uuid, versionId: Uuid, versionLabel: Type.String() });

/**
 * The import body, for the OpenAPI document only: the route reads it itself (`importSource`), since a
 * file of any shape gets its format's own message, and a promotion its own field errors.
 */
const ImportBodyDoc = {
  content: {
    'application/json': {
      schema: Type.Union([
        Type.Object(
          { fromVersionId: Uuid, keys: Type.Optional(Type.Array(Type.String())) },
          { description: 'Promote: the values of another version (these keys, or all)' },
        ),
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'A json file: an exported document or nested values',
        }),
      ]),
    },
    'application/yaml': { schema: Type.String({ description: 'A yaml file' }) },
    'text/plain': { schema: Type.String({ description: 'An env file' }) },
  },
};

function sideOf(cipher: SecretCipher, e: EntryRecord | null) {
  return (
    e && {
      id: e.id,
      isSecret: e.isSecret,
      ...valueAnswer(cipher, e),
      valueType: e.valueType,
      valueTypeName: valueTypeName(e.valueType),
      generation: e.generation,
      name: e.name,
      description: e.description,
      groupName: e.groupName,
      groupDescription: e.groupDescription,
      enumDefinition: e.enumDefinition,
      schema: e.schema,
      overrides: overridesAnswer(e, cipher),
      updatedAt: microsToIso(e.updatedAt),
    }
  );
}

export interface TransferRoutesOptions {
  transfer: ConfigTransfer;
  compare: VersionCompare;
  /** Versions:MaxEntries and Versions:MaxBytes: the import body limit follows from them. */
  caps: VersionCaps;
  cipher: SecretCipher;
}

/** Compare two versions; export a version as json, yaml or env; import a file or another version. */
export const transferRoutes: FastifyPluginAsyncTypebox<TransferRoutesOptions> = async (
  app,
  { transfer, compare, caps, cipher },
) => {
  const tags = ['transfer'];
  // Files arrive as text (this plugin only: everywhere else bodies are JSON), refused unless UTF-8;
  // JSON here is read strictly too, so that a file naming a key twice is refused (parseJsonFile).
  app.addContentTypeParser(TEXT_TYPES, { parseAs: 'buffer' }, (_request, body, done) => {
    parseWith(decodeUtf8, body, done);
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    parseWith((bytes) => parseJsonFile(decodeUtf8(bytes)), body, done);
  });

  app.get(
    '/api/configversions/:serviceId/compare',
    {
      config: { policy: { service: 'read' } },
      schema: {
        tags,
        summary: 'Compare two versions key by key',
        description:
          '`base` is a version of this service; `target` too, or of any service for canAll. Each differing key is `added` (only in target), `removed`, `typeChanged`, `valueChanged` or `metadataChanged`, with both sides.',
        params: Type.Object({ serviceId: Uuid }),
        querystring: Type.Object({ base: Uuid, target: Uuid }),
        response: {
          200: Type.Object({
            base: VersionRefSchema,
            target: VersionRefSchema,
            differences: Type.Array(
              Type.Object({
                key: Type.String(),
                change: Type.String(),
                metadataChanged: Type.Boolean(),
                overridesChanged: Type.Boolean({
                  description: 'The overrides differ (a key whose only difference it is counts as valueChanged)',
                }),
                base: SideSchema,
                target: SideSchema,
              }),
            ),
            unchanged: Type.Integer(),
          }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const anyService = caller.kind === 'user' && hasPolicy(caller.identity, 'canAll');
      const result = await compare.compare(
        { serviceId: request.params.serviceId, versionId: request.query.base },
        { versionId: request.query.target, anyService },
      );
      return {
        ...result,
        differences: result.differences.map((d) => ({
          ...d,
          base: sideOf(cipher, d.base),
          target: sideOf(cipher, d.target),
        })),
      };
    },
  );

  app.get(
    '/api/configversions/:serviceId/:versionId/export',
    {
      config: { policy: { service: 'read' } },
      schema: {
        tags,
        summary: 'Export a version as a file (json, yaml or env)',
        description:
          "json and yaml: `{ service, version, exportedAt, layout, values, entries }` with typed values nested by key segments (or flat keys with `flat=true`) and each entry's type and metadata. env: `Group__Key=value` lines, as .NET and this service read environment variables (null values are left out). A file imports back unchanged. Secrets are left out (json/yaml: value null, and the entry says `isSecret`, `redacted` and its `fingerprint`; env: a comment line) unless `includeSecrets=true`, which needs the canReveal policy (else 403) and is audited as `Revealed` once per secret; importing a file where a secret is null or missing leaves it unchanged.",
        params: Type.Object({ serviceId: Uuid, versionId: Uuid }),
        querystring: Type.Object({
          format: Type.Optional(Format),
          flat: Type.Optional(Flag),
          includeSecrets: Type.Optional(Flag),
        }),
        response: { 200: Type.String({ description: 'The file' }), ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { serviceId, versionId } = request.params;
      const file = await transfer.exportFile(callerOf(request), serviceId, versionId, {
        format: request.query.format ?? 'json',
        flat: request.query.flat === 'true',
        includeSecrets: request.query.includeSecrets === 'true',
      });
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.fileName}"`)
        .header('cache-control', 'no-store')
        .send(file.body);
    },
  );

  app.post(
    '/api/configversions/:serviceId/:versionId/import',
    {
      config: {
        // A dry run only reads; applying checks that the caller may change values (and create keys).
        policy: { service: 'read' },
        swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body: ImportBodyDoc }, url }),
      },
      // Any exported file imports back: the limit follows from the version caps, not the 1 MiB of other routes.
      bodyLimit: importBodyLimit(caps),
      schema: {
        tags,
        summary: 'Import a file, or the values of another version (dry run first)',
        description:
          'The body is a file of `format` (json: application/json, yaml: application/yaml, env: text/plain), an exported document or plain nested values; or JSON `{ "fromVersionId", "keys"? }` to promote values from another version. Each named key gets its value (compared by meaning: unchanged values are not written; for a caller without canReveal a secret given a value is always a change, and its value shows no fingerprint); keys the version lacks answer 400 unless `createMissing=true` (an owner of the service); every refused key and value is named in one answer. `dryRun=true` (the default) answers the changes and a `basedOn` token; applying with `dryRun=false&basedOn=…` answers 409 if any key changed since. Applied as one batch: one stream event, audit action `Imported` (a file) or `Promoted` (the values of another version). The body may be as large as the export of a full version (the limit follows from `Versions:MaxEntries` and `Versions:MaxBytes`); a file naming more keys than a version may hold answers 400, and so does an import that would grow the version past a cap.',
        params: Type.Object({ serviceId: Uuid, versionId: Uuid }),
        querystring: Type.Object({
          format: Type.Optional(Format),
          dryRun: Type.Optional(Flag),
          createMissing: Type.Optional(Flag),
          basedOn: Type.Optional(Type.String({ maxLength: 1_000_000 })),
        }),
        response: { 200: PlanOutcomeSchema, ...problems(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { serviceId, versionId } = request.params;
      const { format, dryRun, createMissing, basedOn } = request.query;
      const source = importSource(request.body, format, caps.maxEntries);
      const outcome = await transfer.import(callerOf(request), { serviceId, versionId }, source, {
        dryRun: dryRun !== 'false',
        createMissing: createMissing === 'true',
        basedOn: basedOn ?? null,
      });
      return planOutcomeOf(outcome, cipher);
    },
  );
};

function parseWith(
  parse: (bytes: Buffer) => unknown,
  body: string | Buffer,
  done: (error: Error | null, body?: unknown) => void,
) {
  try {
    done(null, parse(Buffer.isBuffer(body) ? body : Buffer.from(body)));
  } catch (error) {
    done(error as Error);
  }
}

function importSource(body: unknown, format: ConfigFileFormat | undefined, maxKeys: number): ImportSource {
  if (body && typeof body === 'object' && !Array.isArray(body) && 'fromVersionId' in body) {
    const { fromVersionId, keys } = body as { fromVersionId: unknown; keys?: unknown };
    if (typeof fromVersionId !== 'string' || !/^[0-9a-f-]{36}$/i.test(fromVersionId)) {
      throw AppError.invalid('fromVersionId must be a version id.', { fromVersionId: ['must be a UUID'] });
    }
    if (
      keys !== undefined &&
      (!Array.isArray(keys) ||
        keys.length > maxKeys ||
        !keys.every((k) => typeof k === 'string' && k.length <= ENTRY_LIMITS.key))
    ) {
      throw AppError.invalid('keys must be a list of keys.', { keys: ['must be an array of keys'] });
    }
    return {
      kind: 'version',
      fromVersionId: fromVersionId.toLowerCase(),
      keys: (keys as string[] | undefined) ?? null,
    };
  }
  if (body === undefined || body === null || body === '') {
    throw AppError.invalid('The request has no file.', { body: ['is empty'] });
  }
  return { kind: 'file', format: format ?? (typeof body === 'string' ? 'yaml' : 'json'), content: body };
}
