import { createHash } from 'node:crypto';
import { AppError, type Violation } from '../platform/errors.js';
import type { IdGenerator } from '../platform/ids.js';
import type { EntryRecord } from './entries.js';
import type { UnitOfWork, WriteContext } from './stores.js';
import type { ValidationRequest, ValidatorAnswer, ValidatorCalls, ValidatorRecord } from './validators.js';

/**
 * Outside validators are asked before a write of values commits, and never while the write holds
 * its version's lock: the entry writer finds, at its commit, that the service has enabled
 * validators that have not seen this exact change, and throws `ValidationNeeded`, which rolls the
 * transaction back. `checkedWrites` then asks them (HTTP, outside any transaction) and runs the
 * write again, telling the writer which change they passed. The second run commits only if it
 * makes that same change: a write in between (another generation, another value) makes another
 * change, which is asked about again.
 */

/** Thrown inside a write whose change validators must see first; only `checkedWrites` catches it. */
export class ValidationNeeded extends Error {
  override readonly name = 'ValidationNeeded';

  constructor(
    readonly validators: readonly ValidatorRecord[],
    readonly request: ValidationRequest,
    readonly digest: string,
  ) {
    super('validators have not seen this change');
  }
}

/** A change's digest: everything validators are shown of it except the times of the attempt. */
export function digestOf(request: ValidationRequest): string {
  const side = (e: EntryRecord | null) => {
    if (e === null) return null;
    const { createdAt: _c, updatedAt: _u, changedAt: _t, ...rest } = e;
    return rest;
  };
  const canonical = {
    serviceId: request.serviceId,
    versionId: request.versionId,
    versionLabel: request.versionLabel,
    userId: request.actor.userId,
    changes: request.changes.map((c) => [c.action, side(c.before), side(c.after)]),
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** The refusal of a write that validators did not pass: one violation per validator that refused. */
export function validatorsRefused(answers: readonly ValidatorAnswer[]): AppError {
  const violations: Violation[] = answers.map((a) => ({
    key: null,
    entryId: null,
    instancePath: '',
    keyword: 'validator',
    message: a.message,
  }));
  const named = answers.map((a) => `${originOf(a.url)}: ${a.message.slice(0, 200)}`).join('; ');
  return new AppError('INVALID_ARGUMENT', `A validator refused the change: ${named}.`, undefined, {
    metadata: { violations },
  });
}

const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

/** Runs of one write, at most: a change that keeps moving under its validators is answered 409. */
const MAX_RUNS = 4;

/**
 * Ids the runs of one write share: the run after the validators' answer makes the same ids (entries,
 * versions) as the run they were shown, so what commits is exactly what they saw.
 */
function tapeOf(ids: IdGenerator): IdGenerator & { rewind(): void } {
  const made: string[] = [];
  let next = 0;
  return {
    newId() {
      if (next === made.length) made.push(ids.newId());
      return made[next++] as string;
    },
    rewind() {
      next = 0;
    },
  };
}

/**
 * The unit of work every command uses: `inner`'s, whose writes are asked about by the service's
 * validators (through `calls`) before they commit, as the module comment says.
 */
export function checkedWrites(inner: UnitOfWork, calls: ValidatorCalls, ids: IdGenerator): UnitOfWork {
  return {
    get readOnly() {
      return inner.readOnly;
    },
    read: inner.read,
    readConsistent: (fn) => inner.readConsistent(fn),
    async write<T>(fn: (ctx: WriteContext) => Promise<T>): Promise<T> {
      const passed = new Set<string>();
      const tape = tapeOf(ids);
      for (let run = 1; ; run++) {
        tape.rewind();
        try {
          return await inner.write((ctx) => fn({ ...ctx, ids: tape, validated: passed }));
        } catch (error) {
          if (!(error instanceof ValidationNeeded)) throw error;
          if (run >= MAX_RUNS) {
            throw AppError.conflict('The entries kept changing while validators checked the change; try again.');
          }
          const answers = await calls.ask(error.validators, error.request);
          const refused = answers.filter((a) => !a.passed);
          if (refused.length > 0) throw validatorsRefused(refused);
          passed.add(error.digest);
        }
      }
    },
  };
}
