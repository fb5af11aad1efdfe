/** Exit codes of the server's command line. */
export const EXIT = {
  ok: 0,
  /** The operation failed or was refused (check-config: the configuration has problems). */
  failed: 1,
  /** Wrong arguments, a configuration that cannot be loaded, or a database the command does not apply to. */
  unusable: 2,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Where a command writes: results on `out`, problems and warnings on `err`. */
export interface CommandIo {
  out(line: string): void;
  err(line: string): void;
}

export const processIo: CommandIo = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
