/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by function and by package, and
 * inclusive (total) time of the functions of this repository.
 *
 *   BENCH_SERVER_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" node --import tsx …/getconfig.ts
 *   node --import tsx packages/server/bench/realtime/cpuprofile-top.ts /tmp/prof/<file>.cpuprofile [--top 40]
 *     [--from S --to S]   only the samples between S seconds after the profile's start and S seconds
 *                         (a busy-per-second timeline is printed to help choose the window)
 */
import { readFileSync } from 'node:fs';
import { markdownTable, parseArgs } from './common.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function where(url: string): string {
  if (!url) return '(native/V8)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:')) return url;
  const repo = url.indexOf('/packages/');
  return repo >= 0 ? url.slice(repo + 1) : url;
}

const args = parseArgs(process.argv.slice(2));
const file = process.argv.slice(2).find((a) => !a.startsWith('--'));
if (!file) throw new Error('usage: cpuprofile-top.ts <file.cpuprofile> [--top N]');
const top = Number(args.get('top') ?? 40);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const fromUs = Number(args.get('from') ?? 0) * 1e6;
const toUs = args.has('to') ? Number(args.get('to')) * 1e6 : Infinity;
const selfUs = new Map<number, number>();
const idleId = profile.nodes.find((n) => n.callFrame.functionName === '(idle)')?.id;
const timeline: number[] = [];
let t = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  t += delta;
  const second = Math.floor(t / 1e6);
  if (id !== idleId) timeline[second] = (timeline[second] ?? 0) + delta;
  if (t < fromUs || t > toUs) return;
  selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
});
const totalUs = Math.min(toUs, profile.endTime - profile.startTime) - fromUs;
let idleUs = 0;
process.stdout.write(
  `busy % per second: ${Array.from(timeline, (us, s) => `${s}:${(((us ?? 0) / 1e6) * 100).toFixed(0)}`).join(' ')}\n`,
);

const bySelf = new Map<string, number>();
const byPackage = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const node = byId.get(id);
  if (!node) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === '(idle)') {
    idleUs += us;
    continue;
  }
  const name = `${functionName || '(anonymous)'} ${where(url)}:${lineNumber + 1}`;
  bySelf.set(name, (bySelf.get(name) ?? 0) + us);
  byPackage.set(where(url), (byPackage.get(where(url)) ?? 0) + us);
  // Inclusive time of our own functions: every distinct frame of ours on the stack of this sample.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at)?.callFrame;
    if (!frame || !frame.url.includes('/packages/')) continue;
    const key = `${frame.functionName || '(anonymous)'} ${where(frame.url)}:${frame.lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}
const busyUs = totalUs - idleUs;
const rows = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => [name, (us / 1000).toFixed(0), ((us / busyUs) * 100).toFixed(1)]);

process.stdout.write(
  `profile ${(totalUs / 1e6).toFixed(1)} s, busy ${(busyUs / 1e6).toFixed(1)} s (${((busyUs / totalUs) * 100).toFixed(0)}%)\n\n`,
);
process.stdout.write(`${markdownTable(['self time by package', 'ms', '% of busy'], rows(byPackage, 25))}\n\n`);
process.stdout.write(`${markdownTable(['self time by function', 'ms', '% of busy'], rows(bySelf, top))}\n\n`);
process.stdout.write(`${markdownTable(['inclusive time, this repository', 'ms', '% of busy'], rows(inclusive, 25))}\n`);
