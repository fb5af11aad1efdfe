/**
 * What the V8 heap holds per open stream: two heap snapshots of the same server (fanout.ts
 * --snapshots DIR writes one before and one after opening the streams), aggregated by constructor
 * (object type + name), differenced and divided by the number of streams.
 *
 *   node --max-old-space-size=8192 --import tsx packages/server/bench/realtime/heap-diff.ts \
 *     <before.heapsnapshot> <after.heapsnapshot> --streams 10000 [--top 40]
 */
import { readFileSync } from 'node:fs';
import { markdownTable, parseArgs } from './common.js';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** self size and count per "type:name" (closures by function name, strings and arrays by type). */
function aggregate(file: string): Map<string, { count: number; bytes: number }> {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const result = new Map<string, { count: number; bytes: number }>();
  for (let i = 0; i < data.nodes.length; i += width) {
    const type = types[data.nodes[i + typeAt] ?? 0] ?? '?';
    let name = data.strings[data.nodes[i + nameAt] ?? 0] ?? '';
    // Strings, numbers and code are many distinct names: group by type.
    if (['string', 'concatenated string', 'sliced string', 'number', 'code', 'hidden', 'array'].includes(type))
      name = '';
    if (name.length > 60) name = `${name.slice(0, 57)}…`;
    const key = `${type}${name ? `: ${name}` : ''}`;
    const entry = result.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += data.nodes[i + sizeAt] ?? 0;
    result.set(key, entry);
  }
  return result;
}

const args = parseArgs(process.argv.slice(2));
const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !(all[i - 1] ?? '').startsWith('--'));
const [beforeFile, afterFile] = files;
if (!beforeFile || !afterFile) throw new Error('usage: heap-diff.ts <before> <after> --streams N');
const streams = Number(args.get('streams') ?? 1);
const top = Number(args.get('top') ?? 40);

const before = aggregate(beforeFile);
const after = aggregate(afterFile);
const rows: Array<{ key: string; count: number; bytes: number }> = [];
for (const [key, a] of after) {
  const b = before.get(key) ?? { count: 0, bytes: 0 };
  rows.push({ key, count: a.count - b.count, bytes: a.bytes - b.bytes });
}
rows.sort((x, y) => y.bytes - x.bytes);
const total = rows.reduce((s, r) => s + r.bytes, 0);
process.stdout.write(
  `V8 heap (self sizes of reachable objects) grew by ${(total / 2 ** 20).toFixed(1)} MiB: ` +
    `${(total / streams).toFixed(0)} bytes per stream over ${streams} streams\n\n`,
);
process.stdout.write(
  `${markdownTable(
    ['object (type: constructor/closure)', 'count per stream', 'bytes per stream', '% of growth'],
    rows
      .slice(0, top)
      .map((r) => [
        r.key,
        (r.count / streams).toFixed(2),
        (r.bytes / streams).toFixed(0),
        ((r.bytes / total) * 100).toFixed(1),
      ]),
  )}\n`,
);
