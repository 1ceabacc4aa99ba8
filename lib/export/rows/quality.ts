import type { ResultRow } from '../../spec/types';
import type { QualityCounts } from '../types';

/** Slots of the first table; it doubles when half full. */
const INITIAL_SLOTS = 1 << 12;

/**
 * Counts what a partition's rows should not have (see QualityCounts) as rows stream by,
 * per date. Duplicate connIds are found by a 64-bit hash of (date, connId) in an
 * open-addressing table of two Uint32Arrays: 16 bytes a row at worst, 16 MB at the
 * service's 1,000,000-row limit, where a Set of the strings would hold ~100 MB. Two
 * different ids share a hash with a probability below 3e-8 at that limit (the birthday
 * bound 1e12 / 2^65), which would count one false duplicate: a count that alerts, never
 * one that changes data.
 *
 * A summary's rows are totals (ans of 40 is right there) and carry no connId: only
 * negative times are counted for them.
 */
export class QualityCounter {
  readonly #calls: boolean;
  readonly #byDate = new Map<string, QualityCounts>();
  #hi = new Uint32Array(INITIAL_SLOTS);
  #lo = new Uint32Array(INITIAL_SLOTS);
  /** Slot in use: hi or lo may be 0 for a real hash. */
  #used = new Uint8Array(INITIAL_SLOTS);
  #size = 0;

  constructor(options: { calls: boolean }) {
    this.#calls = options.calls;
  }

  /** The counts per date, for dates that had rows. */
  get byDate(): ReadonlyMap<string, QualityCounts> {
    return this.#byDate;
  }

  add(dt: string, row: ResultRow): void {
    let counts = this.#byDate.get(dt);
    if (counts === undefined) {
      counts = emptyQuality();
      this.#byDate.set(dt, counts);
    }
    if (negative(row.ring) || negative(row.duration)) counts.negativeTime++;
    if (!this.#calls) return;
    if (outOfRange(row.ans) || outOfRange(row.ref) || outOfRange(row.lost)) counts.flagOutOfRange++;
    const id = row.connId;
    if (id === undefined || id === null || id === '') counts.nullConnId++;
    else if (!this.#insert(dt, typeof id === 'string' ? id : String(id))) counts.duplicateConnId++;
  }

  /** Adds the hash of (dt, id); false when it was there already. */
  #insert(dt: string, id: string): boolean {
    if (this.#size * 2 >= this.#used.length) this.#grow();
    // Both 32-bit halves in one pass over the two strings, a separator between them (no
    // key string built per row).
    let hi = 0x811c9dc5;
    let lo = 0x9747b28c;
    for (let i = 0; i < dt.length; i++) {
      const c = dt.charCodeAt(i);
      hi = Math.imul(hi ^ c, 0x01000193);
      lo = Math.imul(lo ^ c, 0x5bd1e995);
    }
    hi = Math.imul(hi, 0x01000193);
    lo = Math.imul(lo, 0x5bd1e995);
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      hi = Math.imul(hi ^ c, 0x01000193);
      lo = Math.imul(lo ^ c, 0x5bd1e995);
    }
    return this.#put(finish(hi), finish(lo));
  }

  #put(hi: number, lo: number): boolean {
    const mask = this.#used.length - 1;
    for (let slot = (lo ^ (hi >>> 7)) & mask; ; slot = (slot + 1) & mask) {
      if (this.#used[slot] === 0) {
        this.#used[slot] = 1;
        this.#hi[slot] = hi;
        this.#lo[slot] = lo;
        this.#size++;
        return true;
      }
      if (this.#hi[slot] === hi && this.#lo[slot] === lo) return false;
    }
  }

  #grow(): void {
    const [hi, lo, used] = [this.#hi, this.#lo, this.#used];
    const slots = used.length * 2;
    this.#hi = new Uint32Array(slots);
    this.#lo = new Uint32Array(slots);
    this.#used = new Uint8Array(slots);
    this.#size = 0;
    for (let s = 0; s < used.length; s++) if (used[s] === 1) this.#put(hi[s] as number, lo[s] as number);
  }
}

/** Counts of a partition with nothing to count. */
export function emptyQuality(): QualityCounts {
  return { nullConnId: 0, duplicateConnId: 0, negativeTime: 0, flagOutOfRange: 0 };
}

/**
 * The last mixing of a 32-bit multiplicative hash of UTF-16 units (FNV-1a style; two seeds
 * and primes give the two halves of the 64-bit hash).
 */
function finish(h: number): number {
  let x = h ^ (h >>> 15);
  x = Math.imul(x, 0x2c1b3c6d);
  x ^= x >>> 12;
  return x >>> 0;
}

function negative(v: unknown): boolean {
  return typeof v === 'number' ? v < 0 : typeof v === 'string' && v.trim().startsWith('-') && Number(v) < 0;
}

function outOfRange(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  const n = typeof v === 'number' ? v : Number(v);
  return !(n === 0 || n === 1);
}
