import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EXPORT_ERROR_CODES, ExportError } from './errors';
import { type PartitionOutput, PartitionWriter, type PartitionWriterOptions } from './partition-writer';
import type { CellValue, ColumnBuffer, ColumnValues, ExportLogger } from './row-mapper';

/** Where row groups go once a partition's buffer is full: encoded here, or on a worker thread. */
export interface PartitionSink {
  /** Encodes and appends the rows; the buffer belongs to the sink afterwards. */
  write(dt: string, buffer: ColumnBuffer): Promise<void>;
  /** Closes every part; partitions in date order. */
  finish(): Promise<PartitionOutput[]>;
  close(): Promise<void>;
}

/** Encodes on the calling thread. */
export class InlineSink implements PartitionSink {
  readonly #options: PartitionWriterOptions;
  readonly #writers = new Map<string, PartitionWriter>();

  constructor(options: PartitionWriterOptions) {
    this.#options = options;
  }

  write(dt: string, buffer: ColumnBuffer): Promise<void> {
    let writer = this.#writers.get(dt);
    if (writer === undefined) {
      writer = new PartitionWriter(dt, this.#options);
      this.#writers.set(dt, writer);
    }
    return writer.write(buffer);
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
export type ToWorker =
  | { type: 'write'; dt: string; rows: number; columns: HandedColumn[] }
  | { type: 'finish' };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'written' }
  | { type: 'finished'; outputs: PartitionOutput[] }
  | { type: 'error'; message: string };

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
 * Splits the encoding over two threads: Parquet on a worker thread (encode-worker), CSV
 * here, next to parsing and mapping; that balances the two cores best (measured). Each
 * row group is copied to the worker (structured clone) before the CSV is written here.
 */
export class WorkerSink implements PartitionSink {
  readonly #worker: Worker;
  readonly #csv: InlineSink;
  #inFlight = 0;
  #failure: Error | undefined;
  #waiters: (() => void)[] = [];
  #finished: ((outputs: PartitionOutput[]) => void) | undefined;

  private constructor(worker: Worker, csv: InlineSink) {
    this.#worker = worker;
    this.#csv = csv;
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'written') this.#inFlight--;
      else if (m.type === 'finished') this.#finished?.(m.outputs);
      else if (m.type === 'error') this.#fail(new Error(m.message));
      this.#wake();
    });
    worker.on('error', (e) => this.#fail(e));
    // Once closed, the failure no longer matters; before that, an exit is a crash.
    worker.on('exit', (code) => this.#fail(new Error(`encode worker exited (${code})`)));
  }

  /** Starts the worker; resolves undefined when it cannot run here (e.g. no bundled worker file). */
  static async start(
    url: URL,
    options: PartitionWriterOptions,
    logger: ExportLogger | undefined,
  ): Promise<WorkerSink | undefined> {
    if (url.protocol === 'file:' && !existsSync(fileURLToPath(url))) {
      logger?.warn('Encode worker not found; encoding on the main thread', { worker: url.pathname });
      return undefined;
    }
    const worker = new Worker(url, {
      workerData: { ...options, formats: ['parquet'] },
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
    return new WorkerSink(worker, new InlineSink({ ...options, formats: ['csv'] }));
  }

  async write(dt: string, buffer: ColumnBuffer): Promise<void> {
    this.#check();
    const message: ToWorker = { type: 'write', dt, rows: buffer.rows, columns: buffer.columns.map(handOver) };
    this.#inFlight++;
    // A copy goes to the worker; this thread keeps the buffer for the CSV.
    this.#worker.postMessage(message);
    await this.#csv.write(dt, buffer);
    while (this.#inFlight >= MAX_IN_FLIGHT && this.#failure === undefined) await this.#next();
    this.#check();
  }

  async finish(): Promise<PartitionOutput[]> {
    this.#check();
    const outputs = new Promise<PartitionOutput[]>((resolve) => {
      this.#finished = resolve;
    });
    this.#worker.postMessage({ type: 'finish' } satisfies ToWorker);
    const csv = await this.#csv.finish();
    const parquet = (await Promise.race([outputs, this.#failed()])) as PartitionOutput[];
    this.#check();
    const csvByDate = new Map(csv.map((p) => [p.dt, p]));
    const dates = [...new Set([...parquet.map((p) => p.dt), ...csv.map((p) => p.dt)])].sort();
    const parquetByDate = new Map(parquet.map((p) => [p.dt, p]));
    return dates.map((dt) => {
      const p = parquetByDate.get(dt);
      const c = csvByDate.get(dt);
      const files = [...(p?.files ?? []), ...(c?.files ?? [])].sort((a, b) => a.part - b.part);
      // Rows are set by the Partitioner from its own count; each format's files are checked against it.
      return { dt, rows: p?.rows ?? 0, files };
    });
  }

  async close(): Promise<void> {
    this.#finished = undefined;
    await this.#worker.terminate();
  }

  #fail(error: Error): void {
    this.#failure ??= new ExportError(
      EXPORT_ERROR_CODES.spillFailed,
      `Encode worker failed: ${error.message}`,
      {
        cause: error,
      },
    );
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

/**
 * A column as handed to the worker: as is, or (a column of few distinct strings) its
 * distinct values plus one index per row (-1 for null). Structured clone copies every
 * string occurrence; the indexed form copies each distinct string once, so the worker
 * allocates (and collects) far less per row group. The worker rebuilds the same values.
 */
export type HandedColumn = ColumnValues | { values: string[]; indexes: Int32Array };

/** Values sampled to decide whether a string column is worth indexing. */
const SAMPLE = 64;

export function handOver(column: ColumnValues): HandedColumn {
  if (column instanceof Float64Array || column.length < SAMPLE * 2) return column;
  const seen = new Map<CellValue, number>();
  for (let i = 0; i < SAMPLE; i++) seen.set(column[i] as CellValue, 0);
  // Mostly distinct (ids) or not strings: copying as is costs less.
  if (seen.size > SAMPLE / 4 || typeof column[0] === 'number') return column;
  const index = new Map<string, number>();
  const values: string[] = [];
  const indexes = new Int32Array(column.length);
  for (let i = 0; i < column.length; i++) {
    const v = column[i];
    if (v === null || v === undefined) {
      indexes[i] = -1;
      continue;
    }
    if (typeof v !== 'string') return column;
    let k = index.get(v);
    if (k === undefined) {
      k = values.length;
      values.push(v);
      index.set(v, k);
    }
    indexes[i] = k;
  }
  return { values, indexes };
}

/** The column values a HandedColumn stands for. */
export function takeOver(column: HandedColumn): ColumnValues {
  if (Array.isArray(column) || column instanceof Float64Array) return column;
  const { values, indexes } = column;
  const out: CellValue[] = [];
  for (let i = 0; i < indexes.length; i++) {
    const k = indexes[i] as number;
    out.push(k < 0 ? null : (values[k] as string));
  }
  return out;
}
