import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EXPORT_ERROR_CODES, ExportError, type SpillShortage } from '../errors';
import type { ArrayPool } from '../rows/array-pool';
import type { BufferedColumn, ColumnBuffer } from '../rows/column-buffer';
import type { PartitionSink } from '../rows/partitioner';
import type { ExportLogger, PartitionOutput } from '../types';
import { PartitionWriter, type PartitionWriterOptions } from './partition-writer';
import { SpillBudget, SpillShortageError } from './spill-budget';

/** What a sink writes: the part files' options and the run's disk budget. */
export interface SpillOptions extends PartitionWriterOptions {
  /** Bytes of part files the sink may write, all partitions and formats; undefined: unlimited. */
  spillBudgetBytes: number | undefined;
}

/** Encodes on the calling thread. */
export class InlineSink implements PartitionSink {
  readonly #options: PartitionWriterOptions;
  readonly #writers = new Map<string, PartitionWriter>();
  /** One budget for every partition: the run's part files all share the disk. */
  readonly #budget: SpillBudget;

  constructor(options: SpillOptions) {
    this.#options = options;
    this.#budget = new SpillBudget(options.spillBudgetBytes);
  }

  async write(dt: string, buffer: ColumnBuffer): Promise<void> {
    let writer = this.#writers.get(dt);
    if (writer === undefined) {
      writer = new PartitionWriter(dt, this.#options, this.#budget);
      this.#writers.set(dt, writer);
    }
    await writer.write(buffer);
    buffer.release();
  }

  async finish(): Promise<PartitionOutput[]> {
    const out: PartitionOutput[] = [];
    for (const dt of [...this.#writers.keys()].sort())
      out.push(await (this.#writers.get(dt) as PartitionWriter).finish());
    return out;
  }

  async close(): Promise<void> {
    // nothing held
  }
}

/** Messages between WorkerSink and encode-worker. */
/** How long a closed encode worker has to end on its own before it is terminated. */
const WORKER_CLOSE_TIMEOUT_MS = 1000;

export type ToWorker =
  | {
      type: 'write';
      dt: string;
      rows: number;
      columns: BufferedColumn[];
      /** Dictionary entries added since the previous message. */
      added: { column: number; values: string[] }[];
    }
  | { type: 'finish' }
  /** Nothing more to do: the worker closes its port and ends on its own. */
  | { type: 'close' };
export type FromWorker =
  | { type: 'ready' }
  /** The row group's arrays, sent back for reuse. */
  | { type: 'written'; buffers: ArrayBuffer[] }
  | { type: 'finished'; outputs: PartitionOutput[] }
  /** `shortage` when the part files did not fit (budget or full disk). */
  | { type: 'error'; message: string; shortage?: SpillShortage };

/**
 * Row groups handed to the worker and not yet written: 2 lets this thread map the next
 * row group while the worker encodes the previous one; it bounds the hand-over memory.
 */
const MAX_IN_FLIGHT = 2;
const START_TIMEOUT_MS = 10_000;
/**
 * A small young generation makes the worker collect its short-lived row groups early
 * instead of growing its heap: peak RSS is the budget that matters (measured).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 };

/**
 * Encodes on a worker thread (encode-worker): this thread parses and maps rows, the
 * worker writes both formats. A row group's typed arrays are transferred, not copied; the
 * run's string dictionaries are mirrored in the worker, each new entry sent once.
 */
export class WorkerSink implements PartitionSink {
  readonly #worker: Worker;
  /** The pool the row groups' arrays came from; they come back into it. */
  #pool: ArrayPool | undefined;
  /** Dictionary entries already sent, per column. */
  readonly #sent: number[] = [];
  #inFlight = 0;
  #failure: Error | undefined;
  #waiters: (() => void)[] = [];
  #finished: ((outputs: PartitionOutput[]) => void) | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'written') {
        this.#inFlight--;
        for (const b of m.buffers) this.#pool?.give(b);
      } else if (m.type === 'finished') this.#finished?.(m.outputs);
      else if (m.type === 'error')
        this.#fail(m.shortage === undefined ? new Error(m.message) : new SpillShortageError(m.shortage));
      this.#wake();
    });
    worker.on('error', (e) => this.#fail(e));
    // Once closed, the failure no longer matters; before that, an exit is a crash.
    worker.on('exit', (code) => this.#fail(new Error(`encode worker exited (${code})`)));
  }

  /** Starts the worker; resolves undefined when it cannot run here (e.g. no bundled worker file). */
  static async start(
    url: URL,
    options: SpillOptions,
    logger: ExportLogger | undefined,
  ): Promise<WorkerSink | undefined> {
    if (url.protocol === 'file:' && !existsSync(fileURLToPath(url))) {
      logger?.warn('Encode worker not found; encoding on the main thread', { worker: url.pathname });
      return undefined;
    }
    const worker = new Worker(url, {
      workerData: options,
      resourceLimits: WORKER_LIMITS,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('encode worker did not start')), START_TIMEOUT_MS);
        worker.once('message', (m: FromWorker) => {
          clearTimeout(timer);
          if (m.type === 'ready') resolve();
          else reject(new Error('encode worker sent an unexpected first message'));
        });
        worker.once('error', (e) => {
          clearTimeout(timer);
          reject(e);
        });
      });
    } catch (error) {
      await worker.terminate();
      logger?.warn('Encode worker failed to start; encoding on the main thread', {
        error: (error as Error).message,
      });
      return undefined;
    }
    return new WorkerSink(worker);
  }

  async write(dt: string, buffer: ColumnBuffer): Promise<void> {
    this.#check();
    this.#pool = buffer.pool;
    const { columns, transfer } = buffer.trimmed();
    const added = buffer.dictionaries.additions(this.#sent);
    const message: ToWorker = { type: 'write', dt, rows: buffer.rows, columns, added };
    this.#inFlight++;
    this.#worker.postMessage(message, transfer);
    while (this.#inFlight >= MAX_IN_FLIGHT && this.#failure === undefined) await this.#next();
    this.#check();
  }

  async finish(): Promise<PartitionOutput[]> {
    this.#check();
    const outputs = new Promise<PartitionOutput[]>((resolve) => {
      this.#finished = resolve;
    });
    this.#worker.postMessage({ type: 'finish' } satisfies ToWorker);
    const out = (await Promise.race([outputs, this.#failed()])) as PartitionOutput[];
    this.#check();
    return out;
  }

  /**
   * Ends the worker. It is asked to end on its own (its port closed, its event loop
   * empties) and terminated only when it has not within a second: `terminate()` of a
   * worker whose code V8 is still optimizing on a background thread can abort the whole
   * process in Node 20 (`NodePlatform::ForIsolate` assertion, nodejs/node worker
   * teardown races), and after a clean finish there is nothing to cut short.
   */
  async close(): Promise<void> {
    this.#finished = undefined;
    const worker = this.#worker;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    if (this.#failure === undefined) {
      worker.postMessage({ type: 'close' } satisfies ToWorker);
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), WORKER_CLOSE_TIMEOUT_MS);
      });
      const ended = await Promise.race([exited.then(() => true), gaveUp]);
      clearTimeout(timer);
      if (ended) return;
    }
    await worker.terminate();
  }

  #fail(error: Error): void {
    // A shortage stays itself: read-partitions names it (EXPORT_SPILL_BUDGET_EXCEEDED).
    this.#failure ??=
      error instanceof SpillShortageError
        ? error
        : new ExportError(EXPORT_ERROR_CODES.spillFailed, `Encode worker failed: ${error.message}`, {
            cause: error,
          });
    this.#wake();
  }

  #check(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }

  #next(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  async #failed(): Promise<void> {
    while (this.#failure === undefined) await this.#next();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
