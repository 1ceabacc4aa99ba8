/**
 * Output chunks of 1 MiB, reused by the encoders of a thread. Encoded bytes wait in them
 * for the file write; fresh buffers per row group survive those waits, are promoted, and
 * only a full GC frees them (measured: tens of MB of external memory at 1,000,000 rows).
 * A caller that got chunks from an encoder hands them back (recycle) once written.
 */
export const CHUNK_BYTES = 1024 * 1024;
const MAX_FREE_CHUNKS = 16;
const EMPTY = Buffer.alloc(0);
const FREE_CHUNKS: ArrayBuffer[] = [];

/** A chunk buffer of `size` bytes (pooled when it is CHUNK_BYTES); contents undefined. */
export function takeChunk(size = CHUNK_BYTES): Buffer {
  const free = size === CHUNK_BYTES ? FREE_CHUNKS.pop() : undefined;
  return free === undefined ? Buffer.allocUnsafeSlow(size) : Buffer.from(free);
}

/** Returns the chunks' buffers to the pool (other sizes are left to the GC). */
export function recycleChunks(chunks: readonly Uint8Array[]): void {
  for (const c of chunks) giveChunk(c.buffer as ArrayBuffer);
}

function giveChunk(buffer: ArrayBuffer): void {
  if (buffer.byteLength === CHUNK_BYTES && FREE_CHUNKS.length < MAX_FREE_CHUNKS) FREE_CHUNKS.push(buffer);
}

/** Bytes appended into pooled chunks, taken as one list per row group. */
export class ChunkedOutput {
  #chunks: Uint8Array[] = [];
  #out: Buffer = EMPTY;
  #o = 0;

  append(bytes: Uint8Array): void {
    let i = 0;
    while (i < bytes.length) {
      if (this.#o === this.#out.length) {
        this.#end();
        this.#out = takeChunk();
      }
      const n = Math.min(bytes.length - i, this.#out.length - this.#o);
      this.#out.set(n === bytes.length ? bytes : bytes.subarray(i, i + n), this.#o);
      this.#o += n;
      i += n;
    }
  }

  /** The chunks appended since the last take. */
  take(): Uint8Array[] {
    this.#end();
    const chunks = this.#chunks;
    this.#chunks = [];
    return chunks;
  }

  #end(): void {
    if (this.#o > 0) this.#chunks.push(this.#out.subarray(0, this.#o));
    else if (this.#out.length > 0) giveChunk(this.#out.buffer as ArrayBuffer);
    this.#out = EMPTY;
    this.#o = 0;
  }
}

/** The buffer of a chunk no longer needed (e.g. after gzip), back to the pool. */
export function recycleChunk(chunk: Buffer): void {
  giveChunk(chunk.buffer as ArrayBuffer);
}
