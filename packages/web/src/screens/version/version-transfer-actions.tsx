import { Button, Checkbox, FileInput, Group, Menu, NativeSelect, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { ConfigFileFormat, Version } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { AnchorLink } from '../../components/anchor-link';
import { ProblemAlert } from '../../components/problem-alert';
import { PlanDialog } from './plan-dialog';

const FORMATS: ReadonlyArray<{ value: ConfigFileFormat; label: string; extension: string }> = [
  { value: 'json', label: 'JSON', extension: 'json' },
  { value: 'yaml', label: 'YAML', extension: 'yaml' },
  { value: 'env', label: '.env', extension: 'env' },
];

function formatOfName(name: string): ConfigFileFormat | null {
  const lower = name.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  if (lower.endsWith('.env') || lower.startsWith('.env')) return 'env';
  return null;
}

/**
 * The file name the server gives an export (`orders-1.4.2.yaml`: the service and the version, so files
 * of several services do not overwrite each other in a downloads folder), from its Content-Disposition.
 */
function exportFileName(disposition: string | null, fallback: string): string {
  const name = /filename="([^"]+)"/.exec(disposition ?? '')?.[1];
  return name ?? fallback;
}

/** Downloads through the API client, so a bearer token (Jwt sign-in) is sent as with every other call. */
async function download(serviceId: string, version: Version, format: ConfigFileFormat): Promise<void> {
  const call = api.GET('/api/configversions/{serviceId}/{versionId}/export', {
    params: { path: { serviceId, versionId: version.id }, query: { format } },
    parseAs: 'text',
  });
  const [text, { response }] = await Promise.all([unwrap(call), call]);
  const extension = FORMATS.find((f) => f.value === format)?.extension ?? format;
  const url = URL.createObjectURL(new Blob([text], { type: 'application/octet-stream' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = exportFileName(response.headers.get('content-disposition'), `${version.versionLabel}.${extension}`);
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Restore the version to a moment, export it as a file, import one: each a dry run first, then one batch. */
export function VersionTransferActions(props: {
  serviceId: string;
  version: Version;
  /** Owners (and admins) may create the keys an import names that the version lacks. */
  mayCreate: boolean;
  /** Restore and import change values: only for those who may (see the version page's reason). */
  mayChange: boolean;
}) {
  const { serviceId, version } = props;
  const [open, setOpen] = useState<'restore' | 'import' | null>(null);
  const [at, setAt] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [reading, setReading] = useState<Promise<string> | null>(null);
  const [format, setFormat] = useState<ConfigFileFormat>('yaml');
  const [createMissing, setCreateMissing] = useState(false);
  const [exportError, setExportError] = useState<unknown>(null);
  const close = () => setOpen(null);

  return (
    <Group>
      {props.mayChange && (
        <Button variant="default" onClick={() => setOpen('restore')}>
          Restore version to…
        </Button>
      )}
      <Menu>
        <Menu.Target>
          <Button variant="default">Export</Button>
        </Menu.Target>
        <Menu.Dropdown>
          {FORMATS.map((f) => (
            <Menu.Item
              key={f.value}
              onClick={() => {
                setExportError(null);
                download(serviceId, version, f.value).catch(setExportError);
              }}
            >
              Export as {f.label}
            </Menu.Item>
          ))}
        </Menu.Dropdown>
      </Menu>
      {props.mayChange && (
        <Button variant="default" onClick={() => setOpen('import')}>
          Import
        </Button>
      )}
      <AnchorLink to="/services/$serviceId/compare" params={{ serviceId }} search={{ base: version.id }}>
        Compare
      </AnchorLink>
      {exportError != null && <ProblemAlert error={exportError} />}

      <PlanDialog
        opened={open === 'restore'}
        onClose={close}
        title={`Restore ${version.versionLabel} to an earlier moment`}
        serviceId={serviceId}
        versionId={version.id}
        request={() => {
          const time = at ? new Date(at) : null;
          if (!time || Number.isNaN(time.getTime())) return 'Choose the moment to restore to.';
          return { kind: 'restore', at: time.toISOString() };
        }}
        applyLabel={(n) => `Restore ${n} ${n === 1 ? 'entry' : 'entries'}`}
      >
        <TextInput
          label="Restore to"
          description="Every value goes back to what it was then (your local time); keys created since are deleted, keys deleted since come back."
          type="datetime-local"
          step={1}
          value={at}
          onChange={(e) => setAt(e.currentTarget.value)}
          maw={320}
        />
      </PlanDialog>

      <PlanDialog
        opened={open === 'import'}
        onClose={close}
        title={`Import into ${version.versionLabel}`}
        serviceId={serviceId}
        versionId={version.id}
        request={async () => {
          if (!file || !reading) return 'Choose a file to import.';
          try {
            return { kind: 'file', format, content: await reading, createMissing: createMissing && !version.protected };
          } catch (error) {
            return `The file could not be read: ${error instanceof Error ? error.message : String(error)}`;
          }
        }}
        applyLabel={(n) => `Apply ${n} ${n === 1 ? 'change' : 'changes'}`}
      >
        <FileInput
          label="File"
          placeholder="A JSON, YAML or .env file"
          value={file}
          onChange={(chosen) => {
            setFile(chosen);
            const text = chosen ? chosen.text() : null;
            text?.catch(() => undefined); // a read error is reported when previewing
            setReading(text);
            const guessed = chosen ? formatOfName(chosen.name) : null;
            if (guessed) setFormat(guessed);
          }}
          clearable
          maw={360}
        />
        <NativeSelect
          label="Format"
          data={FORMATS.map((f) => ({ value: f.value, label: f.label }))}
          value={format}
          onChange={(e) => setFormat(e.currentTarget.value as ConfigFileFormat)}
          maw={200}
        />
        {props.mayCreate && (
          <Checkbox
            label="Create missing keys"
            description={
              version.protected
                ? 'A protected version takes no new keys from an import: a change request only sets values.'
                : "Keys the file names that this version lacks are created with the file's types; otherwise the import names them and changes nothing."
            }
            checked={createMissing && !version.protected}
            disabled={version.protected}
            onChange={(e) => setCreateMissing(e.currentTarget.checked)}
          />
        )}
      </PlanDialog>
    </Group>
  );
}
