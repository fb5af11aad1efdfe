import type { PlanOutcome } from '@realtime-config/protocol/rest';
import { actionWords as sharedActionWords } from './vocabulary.js';

/** Where a command's results go: JSON on stdout for pipelines, or aligned text for people. */
export interface Output {
  readonly json: boolean;
  /** The command's result: JSON as it is, or the text `human()` gives. */
  result(value: unknown, human: () => string): void;
  /** Messages for people: on stderr, so stdout stays the result. */
  note(message: string): void;
}

export function createOutput(json: boolean, stdout = process.stdout, stderr = process.stderr): Output {
  return {
    json,
    result(value, human) {
      stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : ensureNewline(human()));
    },
    note(message) {
      stderr.write(ensureNewline(message));
    },
  };
}

function ensureNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/** Columns padded to their widest cell. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** A value as one line: null shown as such, long or multi-line text shortened. */
export function shown(value: string | null | undefined, max = 60): string {
  if (value === null || value === undefined) return '(null)';
  // Control characters (newlines, tabs) as escapes; quotes and backslashes as they are.
  // eslint-disable-next-line no-control-regex
  const oneLine = value.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

const changes = (n: number) => `${n} ${n === 1 ? 'change' : 'changes'}`;

/** What a restore or an import changes (a dry run) or changed, in lines for people. */
export function planText(plan: PlanOutcome): string {
  if (plan.changes.length === 0) return `Nothing to change (${plan.unchanged} keys already as wanted).`;
  const rows = plan.changes.map((c) => [
    c.action,
    c.key,
    c.current ? shown(c.current.value, 40) : '–',
    c.next ? shown(c.next.value, 40) : '–',
  ]);
  const summary = plan.applied
    ? `Applied ${changes(plan.changes.length)} as one batch; ${plan.unchanged} unchanged.`
    : `Dry run: ${changes(plan.changes.length)} would be made; ${plan.unchanged} unchanged. Nothing was changed.`;
  // What applying would be refused for: the rules values break, the validators that say no.
  const refusals = [
    ...plan.changes.flatMap((c) =>
      c.violations.map((v) => `${c.key}${v.instancePath}: ${v.message} (${v.keyword}): applying is refused`),
    ),
    ...plan.validators
      .filter((v) => !v.passed)
      .map((v) => `validator ${v.url} refuses (${v.statusCode ?? 'no answer'}): ${shown(v.message, 200)}`),
  ];
  return [table(['ACTION', 'KEY', 'NOW', 'AFTER'], rows), ...refusals, summary].join('\n');
}

const DIFFERENCES: Readonly<Record<string, string>> = {
  added: 'only in target',
  removed: 'only in base',
  valueChanged: 'value differs',
  typeChanged: 'type differs',
  metadataChanged: 'details differ',
};

/** A difference of `diff` in words ("value differs"); the JSON output keeps the API's names. */
export function differenceWords(change: string, metadataToo: boolean): string {
  const words = Object.hasOwn(DIFFERENCES, change) ? (DIFFERENCES[change] ?? change) : change;
  return metadataToo && change !== 'metadataChanged' ? `${words}, details too` : words;
}

/** A history action in the console's words, lower case ("value set"); the JSON output keeps the API's names. */
export function actionWords(action: string): string {
  return sharedActionWords(action).toLowerCase();
}
