import type { ResultRow } from '../../spec';
import type { PartitionOutput } from '../types';
import type { ColumnBuffer } from './column-buffer';
import type { RowMapper } from './row-mapper';

/**
 * Where row groups go once a partition's buffer is full: encoded here, or on a worker
 * thread (lib/export/spill implements it; declared here so rows never import spill).
 */
export interface PartitionSink {
  /** Encodes and appends the rows; the buffer belongs to the sink afterwards. */
  write(dt: string, buffer: ColumnBuffer): Promise<void>;
  /** Closes every part; partitions in date order. */
  finish(): Promise<PartitionOutput[]>;
  close(): Promise<void>;
}

interface PartitionerOptions {
  /** Rows per part file; a row group never straddles two parts. */
  maxRowsPerFile: number;
  /** Rows per Parquet row group when a partition's rows arrive together. */
  rowGroupRows: number;
  /** Rows buffered across all partitions; when reached, the biggest buffer is flushed. */
  maxBufferedRows: number;
  /**
   * UTF-8 bytes of text buffered across all partitions; when reached, the buffers holding
   * the most are flushed until it is not. Bounds memory when values are large (a row of
   * megabytes), whatever the row count.
   * @default 8 MiB (DEFAULT_MAX_BUFFERED_BYTES)
   */
  maxBufferedBytes?: number;
  /**
   * Partitions holding a buffer at once; a new one beyond it flushes the one that waited
   * longest. Bounds memory over many days (a buffer costs about 30 KB even with one row).
   * @default 64 (DEFAULT_MAX_OPEN_BUFFERS)
   */
  maxOpenBuffers?: number;
}

/**
 * Text bytes buffered before a flush: about 3 times what a full row group of the
 * service's rows holds (32,768 rows, about 80 bytes of ids each), so it only splits row
 * groups of rows far larger than the service's usual ones. Measured with 200 rows of
 * 4 MB: 16 MiB peaked at 288-295 MB of RSS, 8 MiB at 185-238 MB, 4 MiB no lower than 8.
 */
export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/**
 * Rows in time order (what the service sends) keep one or two partitions open; unsorted
 * rows over more days than this give smaller row groups, never more memory.
 */
export const DEFAULT_MAX_OPEN_BUFFERS = 64;

interface OpenPartition {
  /** Rows waiting for the sink; undefined until the partition's next row (allocated lazily). */
  buffer: ColumnBuffer | undefined;
  /** The buffer's text bytes, as last counted into the partitioner's total. */
  bytes: number;
  /** Rows routed to the partition in all. */
  routed: number;
  /** Rows already written to the open part (mirrors PartitionWriter's rotation). */
  partRows: number;
  /** Order of the partition's first row: ties between equally big buffers go to the earliest. */
  readonly seq: number;
}

/**
 * Routes rows to the partition of their local date (`dt`).
 *
 * Memory is bounded whatever the number of days, their order or the size of the rows: a
 * partition's rows are buffered until its buffer holds `rowGroupRows` rows, or until the
 * total across partitions reaches `maxBufferedRows` rows or `maxBufferedBytes` bytes of
 * text, when the biggest buffer is handed to the sink as a row group; and at most
 * `maxOpenBuffers` partitions hold a buffer (a partition gets one with its next row, and
 * the one that waited longest is flushed to make room). Rows sorted by time (what the
 * service returns) give full row groups; unsorted rows over many days give smaller row
 * groups, never more memory. Per partition only a few counters stay here, and in the sink
 * its compact footer metadata, between flushes.
 */
export class Partitioner {
  readonly #mapper: RowMapper;
  readonly #options: PartitionerOptions;
  readonly #maxBufferedBytes: number;
  readonly #maxOpenBuffers: number;
  readonly #sink: PartitionSink;
  readonly #partitions = new Map<string, OpenPartition>();
  /** Partitions holding a buffer, the one written to longest ago first. */
  readonly #open = new Map<string, OpenPartition>();
  #buffered = 0;
  #bufferedBytes = 0;
  #rows = 0;
  #current: OpenPartition | undefined;
  #currentDt = '';
  readonly #select = (dt: string): ColumnBuffer => {
    let open = this.#partitions.get(dt);
    if (open === undefined) {
      open = { buffer: undefined, bytes: 0, routed: 0, partRows: 0, seq: this.#partitions.size };
      this.#partitions.set(dt, open);
    }
    if (open.buffer === undefined) {
      open.buffer = this.#mapper.newBuffer();
      this.#open.set(dt, open);
    } else if (dt !== this.#currentDt) {
      // Most recently written last (rows in time order never get here but at a day change).
      this.#open.delete(dt);
      this.#open.set(dt, open);
    }
    this.#current = open;
    this.#currentDt = dt;
    return open.buffer;
  };

  constructor(mapper: RowMapper, sink: PartitionSink, options: PartitionerOptions) {
    this.#mapper = mapper;
    this.#sink = sink;
    this.#options = options;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.#maxOpenBuffers = options.maxOpenBuffers ?? DEFAULT_MAX_OPEN_BUFFERS;
  }

  /** Rows accepted so far. */
  get rows(): number {
    return this.#rows;
  }

  /** Partitions holding a buffer now (at most maxOpenBuffers once add's promise settled). */
  get openBuffers(): number {
    return this.#open.size;
  }

  /** Text bytes buffered now. */
  get bufferedBytes(): number {
    return this.#bufferedBytes;
  }

  /**
   * Buffers a row; returns a promise only when a buffer had to be handed over (await it
   * before the next add).
   * A row the mapper drops (outside the window) is not counted.
   */
  add(row: ResultRow): Promise<void> | undefined {
    const dt = this.#mapper.append(row, this.#select);
    if (dt === undefined) return undefined;
    this.#rows++;
    this.#buffered++;
    const open = this.#current as OpenPartition;
    const buffer = open.buffer as ColumnBuffer;
    open.routed++;
    const bytes = buffer.textBytes;
    this.#bufferedBytes += bytes - open.bytes;
    open.bytes = bytes;
    const rows = buffer.rows;
    if (rows >= this.#options.rowGroupRows || open.partRows + rows >= this.#options.maxRowsPerFile) {
      return this.#flush(dt, open);
    }
    if (
      this.#open.size > this.#maxOpenBuffers ||
      this.#buffered >= this.#options.maxBufferedRows ||
      this.#bufferedBytes >= this.#maxBufferedBytes
    ) {
      return this.#relieve();
    }
    return undefined;
  }

  /**
   * Hands over every buffer and closes every part; partitions in date order. Each
   * partition's `rows` is the count routed here, which verification holds every format to.
   */
  async finish(): Promise<PartitionOutput[]> {
    for (const [dt, open] of [...this.#open].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if ((open.buffer as ColumnBuffer).rows > 0) await this.#flush(dt, open);
    }
    const outputs = await this.#sink.finish();
    const byDate = new Map(outputs.map((o) => [o.dt, o]));
    return [...this.#partitions.keys()].sort().map((dt) => ({
      dt,
      rows: (this.#partitions.get(dt) as OpenPartition).routed,
      files: byDate.get(dt)?.files ?? [],
    }));
  }

  #flush(dt: string, open: OpenPartition): Promise<void> {
    const buffer = open.buffer as ColumnBuffer;
    open.buffer = undefined;
    this.#open.delete(dt);
    this.#buffered -= buffer.rows;
    this.#bufferedBytes -= open.bytes;
    open.bytes = 0;
    if (this.#current === open) this.#currentDt = '';
    const partRows = open.partRows + buffer.rows;
    open.partRows = partRows >= this.#options.maxRowsPerFile ? 0 : partRows;
    return this.#sink.write(dt, buffer);
  }

  /** Brings every budget back within bounds: open buffers, then rows, then text bytes. */
  async #relieve(): Promise<void> {
    while (this.#open.size > this.#maxOpenBuffers) {
      // The partition written to longest ago: with rows in time order, a finished day.
      const [dt, open] = this.#open.entries().next().value as [string, OpenPartition];
      await this.#flush(dt, open);
    }
    if (this.#buffered >= this.#options.maxBufferedRows) await this.#flushBiggest('rows');
    while (this.#bufferedBytes >= this.#maxBufferedBytes && this.#open.size > 0) {
      await this.#flushBiggest('bytes');
    }
  }

  /** The buffer with the most rows (or text bytes); the earliest partition among equals. */
  #flushBiggest(by: 'rows' | 'bytes'): Promise<void> {
    let biggest: [string, OpenPartition] | undefined;
    let most = -1;
    for (const entry of this.#open) {
      const open = entry[1];
      const size = by === 'rows' ? (open.buffer as ColumnBuffer).rows : open.bytes;
      if (size > most || (size === most && open.seq < (biggest as [string, OpenPartition])[1].seq)) {
        biggest = entry;
        most = size;
      }
    }
    const [dt, open] = biggest as [string, OpenPartition];
    return this.#flush(dt, open);
  }
}
