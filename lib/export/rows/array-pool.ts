/** Where a ColumnBuffer's arrays go when it is done with them. */
export interface ArrayRecycler {
  give(buffer: ArrayBuffer): void;
}

/**
 * Free ArrayBuffers by size, reused for column buffers. Buffered rows then allocate
 * nothing once a run is under way: fresh typed arrays per row group are external memory
 * that only a full garbage collection frees, and they pile up (measured: +50-80 MB at
 * 1,000,000 rows). Sizes are powers of two times the element width, so there are few.
 */
export class ArrayPool implements ArrayRecycler {
  readonly #free = new Map<number, ArrayBuffer[]>();
  readonly #maxBytes: number;
  readonly #maxBuffer: number;
  #bytes = 0;

  /**
   * @param maxBytes bytes held free at most
   * @param maxBuffer the largest buffer kept: the text of values of a few MB is kept for
   *   the next buffer (same sizes, in whole MiB), bigger ones are left to the GC
   */
  constructor(maxBytes = 32 * 1024 * 1024, maxBuffer = 8 * 1024 * 1024) {
    this.#maxBytes = maxBytes;
    this.#maxBuffer = maxBuffer;
  }

  /** Bytes held free. */
  get bytes(): number {
    return this.#bytes;
  }

  /** A buffer of exactly `byteLength` bytes; its contents are undefined. */
  take(byteLength: number): ArrayBuffer {
    const free = this.#free.get(byteLength);
    const buffer = free?.pop();
    if (buffer === undefined) return new ArrayBuffer(byteLength);
    this.#bytes -= byteLength;
    return buffer;
  }

  /** Keeps a buffer for reuse (dropped when the pool is full; detached buffers are ignored). */
  give(buffer: ArrayBuffer): void {
    const size = buffer.byteLength;
    if (size === 0 || size > this.#maxBuffer || this.#bytes + size > this.#maxBytes) return;
    let free = this.#free.get(size);
    if (free === undefined) {
      free = [];
      this.#free.set(size, free);
    }
    free.push(buffer);
    this.#bytes += size;
  }
}

/** Collects buffers instead of keeping them (the encode worker sends them back to the owner's pool). */
export class ArrayCollector implements ArrayRecycler {
  buffers: ArrayBuffer[] = [];

  give(buffer: ArrayBuffer): void {
    if (buffer.byteLength > 0) this.buffers.push(buffer);
  }

  /** The buffers collected so far; starts a new collection. */
  take(): ArrayBuffer[] {
    const out = this.buffers;
    this.buffers = [];
    return out;
  }
}
