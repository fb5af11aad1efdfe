import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { AppError } from '../../platform/errors.js';
import { yamlTextOf, yamlValueOf } from './yaml-text.js';

/**
 * YAML export and import off the event loop. The `yaml` library needs about 0.3 s to write and 3 s to
 * read a version of 10,000 entries (JSON: 10 ms): on the event loop, a few of them at once would keep
 * every other request, stream and health check waiting for seconds. Large documents therefore go to
 * a small pool of worker threads (piscina): bounded in threads, in queued tasks (more answer 503),
 * in time per task and in memory per thread (a thread out of memory ends alone, not the process).
 * Small ones, the usual case, stay on the event loop, where they cost less than a thread round trip.
 */
export interface YamlWorkers {
  /** The document as YAML; `entries` tells its size. */
  stringify(document: unknown, entries: number): Promise<string>;
  /** The value of a YAML file (400 when it is not YAML). */
  parse(text: string): Promise<unknown>;
  close(): Promise<void>;
}

/** Entries below which a document is written on the event loop (about 10 ms). */
const SMALL_DOCUMENT_ENTRIES = 200;
/** Characters below which a file is read on the event loop (about 20 ms). */
const SMALL_FILE_CHARS = 16 * 1024;
/** Tasks waiting for a thread; beyond, the server answers 503 and the client retries later. */
const MAX_QUEUED = 16;
/** A task still running after this is stopped (its thread ends): no file may hold a thread for ever. */
const TASK_TIMEOUT_MS = 60_000;
/** Heap of one thread: reading a file at the import limit fits; a file that needs more is refused. */
const THREAD_HEAP_MB = 1024;

// Built, the worker is dist/…/yaml-worker.js; from the sources, a shim loads yaml-worker.ts through tsx.
const WORKER = import.meta.url.endsWith('.ts') ? './yaml-worker-source.mjs' : './yaml-worker.js';

export function createYamlWorkers(): YamlWorkers {
  const pool = new Piscina({
    filename: new URL(WORKER, import.meta.url).href,
    // The event loop keeps a core; threads start when needed and end after a minute unused.
    minThreads: 0,
    maxThreads: Math.max(1, Math.min(4, availableParallelism() - 1)),
    idleTimeout: 60_000,
    maxQueue: MAX_QUEUED,
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  });

  const run = async <T>(task: unknown, name: 'parse' | 'stringify'): Promise<T> => {
    try {
      return (await pool.run(task, { name, signal: AbortSignal.timeout(TASK_TIMEOUT_MS) })) as T;
    } catch (error) {
      throw failureOf(error, name);
    }
  };

  return {
    async stringify(document, entries) {
      if (entries < SMALL_DOCUMENT_ENTRIES) return yamlTextOf(document);
      return run<string>(document, 'stringify');
    },
    async parse(text) {
      if (text.length < SMALL_FILE_CHARS) return yamlValueOf(text);
      const result = await run<{ value: unknown } | { invalid: string }>(text, 'parse');
      if ('invalid' in result) throw AppError.invalid(result.invalid);
      return result.value;
    },
    close: () => pool.destroy(),
  };
}

function failureOf(error: unknown, task: 'parse' | 'stringify'): AppError {
  const what = task === 'parse' ? 'reading the YAML file' : 'writing the YAML file';
  if (error instanceof Error && error.message === 'Task queue is at limit') {
    return new AppError('UNAVAILABLE', `The server is busy with other large YAML files; retry ${what} shortly.`);
  }
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return task === 'parse'
      ? AppError.invalid(`The YAML file took longer than ${TASK_TIMEOUT_MS / 1000} s to read; send it as JSON.`)
      : new AppError('UNAVAILABLE', `Writing the YAML file took longer than ${TASK_TIMEOUT_MS / 1000} s; use JSON.`);
  }
  if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return task === 'parse'
      ? AppError.invalid('The YAML file needs more memory to read than the server allows; send it as JSON.')
      : new AppError('UNAVAILABLE', 'Writing the YAML file needs more memory than the server allows; use JSON.');
  }
  return new AppError('INTERNAL', `Failed ${what}.`, undefined, { cause: error });
}
