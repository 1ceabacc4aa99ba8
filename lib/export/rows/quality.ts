import type { ResultRow } from '../../spec';
import type { QualityCounts } from '../types';

/** Slots of a date's first table (128 bytes): a run of 3,000 one-row days stays small. */
const INITIAL_SLOTS = 16;

/**
 * Counts what a partition's rows should not have (see QualityCounts) as rows stream by,
 * per date. Duplicate connIds are found per date, by a 64-bit hash of the connId in an
 * open-addressing table of that date: 8 bytes a slot, both halves in one Uint32Array.
 *
 * Rows arrive day by day. The table being filled is at most half full and small enough to
 * stay in the CPU's cache; when the rows move on to the next date its hashes are packed, in
 * one pass, into a list without empty slots (8 bytes a row: 7.2 MB at 900,400 rows), and the
 * table is reused, cleared, for the next date, so no table is left for the GC. A packed list
 * is never probed: only a date whose rows come back (unsorted rows) needs its hashes again,
 * and then they go back into a table at most a quarter full, which grows as any; such a
 * date is not packed a second time, so the work stays linear in the rows. (Packed into a
 * table 80 % full, a settled date took 10 bytes a row: 9 MB at 900,400 rows. One table for
 * the whole run, probed at random, cost ~650 ns a row (5 % of the export's CPU), 18 MB at
 * 900,400 rows, and left each table it outgrew (up to 9 MB) until a full GC.)
 *
 * Two different ids of one date share a hash with a probability below 3e-8 at the
 * service's 1,000,000-row limit (the birthday bound 1e12 / 2^65), which would count one
 * false duplicate: a count that alerts, never one that changes data.
 *
 * A summary's rows are totals (ans of 40 is right there) and carry no connId: only
 * negative times are counted for them.
 */
export class QualityCounter {
  readonly #calls: boolean;
  readonly #byDate = new Map<string, QualityCounts>();
  readonly #idsByDate = new Map<string, ConnIdHashes>();
  /** The last date added to, and its counts and ids. */
  #lastDate: string | undefined;
  #lastCounts: QualityCounts = emptyQuality();
  #lastIds: ConnIdHashes | undefined;
  /** A cleared table a settled date left, for the next new date. */
  #spare: Uint32Array | undefined;

  constructor(options: { calls: boolean }) {
    this.#calls = options.calls;
  }

  /** The counts per date, for dates that had rows. */
  get byDate(): ReadonlyMap<string, QualityCounts> {
    return this.#byDate;
  }

  add(dt: string, row: ResultRow): void {
    if (dt !== this.#lastDate) this.#select(dt);
    const counts = this.#lastCounts;
    if (negative(row.ring) || negative(row.duration)) counts.negativeTime++;
    if (!this.#calls) return;
    if (outOfRange(row.ans) || outOfRange(row.ref) || outOfRange(row.lost)) counts.flagOutOfRange++;
    const id = row.connId;
    if (id === undefined || id === null || id === '') counts.nullConnId++;
    else if (!(this.#lastIds as ConnIdHashes).add(typeof id === 'string' ? id : String(id)))
      counts.duplicateConnId++;
  }

  #select(dt: string): void {
    const left = this.#lastIds?.settle();
    if (left !== undefined && (this.#spare === undefined || left.length > this.#spare.length))
      this.#spare = left;
    let counts = this.#byDate.get(dt);
    if (counts === undefined) {
      counts = emptyQuality();
      this.#byDate.set(dt, counts);
    }
    let ids = this.#idsByDate.get(dt);
    if (ids === undefined && this.#calls) {
      ids = new ConnIdHashes(this.#spare);
      this.#spare = undefined;
      this.#idsByDate.set(dt, ids);
    }
    this.#lastDate = dt;
    this.#lastCounts = counts;
    this.#lastIds = ids;
  }
}

/** The connIds of one date, as 64-bit hashes (linear probing), packed once the date is left. */
class ConnIdHashes {
  /**
   * Slot s holds the hash's high half at 2s and its low half at 2s + 1; a low half of 0 is an
   * empty slot. Once packed: the hashes one after another, no empty slot, never probed.
   */
  #table: Uint32Array;
  #slots: number;
  #size = 0;
  #settled = false;
  #packed = false;

  /** `table`: an empty table to start with (any even length of at least 2 * INITIAL_SLOTS). */
  constructor(table: Uint32Array = new Uint32Array(2 * INITIAL_SLOTS)) {
    this.#table = table;
    this.#slots = table.length >>> 1;
  }

  /** Adds the hash of `id`; false when it was there already. */
  add(id: string): boolean {
    if (this.#packed) {
      // The date's rows came back: its hashes go back into a table, a quarter full.
      this.#packed = false;
      this.#rehash(new Uint32Array(8 * Math.max(INITIAL_SLOTS / 4, this.#size)));
    } else if (this.#size * 2 >= this.#slots) this.#rehash(new Uint32Array(4 * this.#slots));
    let hi = 0x811c9dc5;
    let lo = 0x9747b28c;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      hi = Math.imul(hi ^ c, 0x01000193);
      lo = Math.imul(lo ^ c, 0x5bd1e995);
    }
    // A low half of 0 is taken as 1 (0 marks an empty slot): 2^-32 of hashes merge with another.
    return this.#put(finish(hi), finish(lo) || 1);
  }

  /**
   * The rows moved on to another date: the first time, packs the hashes into a list of
   * exactly their size and returns the table they left, cleared; undefined after the first
   * time (the date came back: its table stays).
   */
  settle(): Uint32Array | undefined {
    if (this.#settled) return undefined;
    this.#settled = true;
    const left = this.#table;
    const packed = new Uint32Array(2 * this.#size);
    let n = 0;
    for (let at = 0; at < left.length; at += 2) {
      const lo = left[at + 1] as number;
      if (lo === 0) continue;
      packed[n++] = left[at] as number;
      packed[n++] = lo;
    }
    this.#table = packed;
    this.#slots = this.#size;
    this.#packed = true;
    return left.fill(0);
  }

  #put(hi: number, lo: number): boolean {
    const t = this.#table;
    const slots = this.#slots;
    // The home slot from the high half's top 22 bits (the product stays an exact integer).
    let slot = Math.floor(((hi >>> 10) * slots) / 4_194_304);
    for (;;) {
      const at = slot << 1;
      const l = t[at + 1] as number;
      if (l === 0) {
        t[at] = hi;
        t[at + 1] = lo;
        this.#size++;
        return true;
      }
      if (l === lo && t[at] === hi) return false;
      if (++slot === slots) slot = 0;
    }
  }

  #rehash(table: Uint32Array): void {
    const old = this.#table;
    this.#table = table;
    this.#slots = table.length >>> 1;
    this.#size = 0;
    for (let at = 0; at < old.length; at += 2) {
      const lo = old[at + 1] as number;
      if (lo !== 0) this.#put(old[at] as number, lo);
    }
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
