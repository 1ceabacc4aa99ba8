import type { ResultRow } from '../../spec/types';
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

export interface PartitionerOptions {
  /** Rows per part file; a row group never straddles two parts. */
  maxRowsPerFile: number;
  /** Rows per Parquet row group when a partition's rows arrive together. */
  rowGroupRows: number;
  /** Rows buffered across all partitions; when reached, the biggest buffer is flushed. */
  maxBufferedRows: number;
}

interface OpenPartition {
  buffer: ColumnBuffer;
  /** Rows routed to the partition in all. */
  routed: number;
  /** Rows already written to the open part (mirrors PartitionWriter's rotation). */
  partRows: number;
}

/**
 * Routes rows to the partition of their local date (`dt`).
 *
 * Memory is bounded by `maxBufferedRows` whatever the number of days or their order:
 * a partition's rows are buffered until its buffer holds `rowGroupRows` rows, or until
 * the total across partitions reaches `maxBufferedRows`, when the biggest buffer is
 * handed to the sink as a row group. Rows sorted by time (what the service returns) give
 * full row groups; unsorted rows over many days give smaller row groups, never more
 * memory. Per partition only its small footer metadata stays in memory between flushes.
 */
export class Partitioner {
  readonly #mapper: RowMapper;
  readonly #options: PartitionerOptions;
  readonly #sink: PartitionSink;
  readonly #partitions = new Map<string, OpenPartition>();
  #buffered = 0;
  #rows = 0;
  #current: OpenPartition | undefined;
  readonly #select = (dt: string): ColumnBuffer => {
    let open = this.#partitions.get(dt);
    if (open === undefined) {
      open = { buffer: this.#mapper.newBuffer(), routed: 0, partRows: 0 };
      this.#partitions.set(dt, open);
    }
    this.#current = open;
    return open.buffer;
  };

  constructor(mapper: RowMapper, sink: PartitionSink, options: PartitionerOptions) {
    this.#mapper = mapper;
    this.#sink = sink;
    this.#options = options;
  }

  /** Rows accepted so far. */
  get rows(): number {
    return this.#rows;
  }

  /**
   * Buffers a row; returns a promise only when a buffer had to be handed over (await it).
   * A row the mapper drops (outside the window) is not counted.
   */
  add(row: ResultRow): Promise<void> | undefined {
    const dt = this.#mapper.append(row, this.#select);
    if (dt === undefined) return undefined;
    this.#rows++;
    this.#buffered++;
    const open = this.#current as OpenPartition;
    open.routed++;
    const rows = open.buffer.rows;
    if (rows >= this.#options.rowGroupRows || open.partRows + rows >= this.#options.maxRowsPerFile) {
      return this.#flush(dt, open);
    }
    if (this.#buffered >= this.#options.maxBufferedRows) return this.#flushBiggest();
    return undefined;
  }

  /**
   * Hands over every buffer and closes every part; partitions in date order. Each
   * partition's `rows` is the count routed here, which verification holds every format to.
   */
  async finish(): Promise<PartitionOutput[]> {
    for (const [dt, open] of [...this.#partitions].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (open.buffer.rows > 0) await this.#flush(dt, open);
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
    const buffer = open.buffer;
    open.buffer = this.#mapper.newBuffer();
    this.#buffered -= buffer.rows;
    const partRows = open.partRows + buffer.rows;
    open.partRows = partRows >= this.#options.maxRowsPerFile ? 0 : partRows;
    return this.#sink.write(dt, buffer);
  }

  #flushBiggest(): Promise<void> | undefined {
    let biggest: [string, OpenPartition] | undefined;
    for (const entry of this.#partitions) {
      if (biggest === undefined || entry[1].buffer.rows > biggest[1].buffer.rows) biggest = entry;
    }
    return biggest === undefined ? undefined : this.#flush(biggest[0], biggest[1]);
  }
}
