/**
 * Seeded pseudo-random numbers for the local service. Everything the service makes up
 * (ids, call records) comes from here so one seed always yields the same data; nothing
 * in the simulator calls Math.random.
 */

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Mixes any number of integers into one 32-bit seed (FNV-1a over the words plus an avalanche). */
export function mixSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    let v = part | 0;
    for (let i = 0; i < 4; i++) {
      h ^= v & 0xff;
      h = Math.imul(h, 0x01000193);
      v >>>= 8;
    }
    // Large day numbers or seeds beyond 32 bits still contribute their high part.
    const high = Math.floor(part / 4294967296) | 0;
    h ^= high;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Turns a short label into a number usable with {@link mixSeed}. */
export function labelSeed(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, good enough for synthetic data (not for secrets). */
export class Prng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed | 0;
  }

  /** Restarts the sequence from a new seed (lets hot loops reuse one instance). */
  reseed(seed: number): void {
    this.#state = seed | 0;
  }

  /** Next 32-bit unsigned integer. */
  nextUint32(): number {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** A random element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** Log-normal sample with the given median and shape (sigma of the underlying normal). */
  logNormal(median: number, sigma: number): number {
    // Box-Muller; 1 - next() keeps the logarithm finite.
    const u = 1 - this.next();
    const v = this.next();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return median * Math.exp(sigma * z);
  }

  /** A version-4 shaped GUID (lower-case, hyphenated). */
  guid(): string {
    return formatGuid(this.nextUint32(), this.nextUint32(), this.nextUint32(), this.nextUint32());
  }
}

/** A version-4 shaped GUID of four 32-bit words (lets a caller draw the words now and write them later). */
export function formatGuid(a: number, b: number, c: number, d: number): string {
  return `${HEX[a >>> 24]}${HEX[(a >>> 16) & 0xff]}${HEX[(a >>> 8) & 0xff]}${HEX[a & 0xff]}-${HEX[b >>> 24]}${
    HEX[(b >>> 16) & 0xff]
  }-4${((b >>> 8) & 0x0f).toString(16)}${HEX[b & 0xff]}-${HEX[0x80 | ((c >>> 24) & 0x3f)]}${HEX[(c >>> 16) & 0xff]}-${
    HEX[(c >>> 8) & 0xff]
  }${HEX[c & 0xff]}${HEX[d >>> 24]}${HEX[(d >>> 16) & 0xff]}${HEX[(d >>> 8) & 0xff]}${HEX[d & 0xff]}`;
}

/** GUID shape accepted in paths and bodies (any version, either case). */
export const GUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** True when the value is a hyphenated GUID. */
export function isGuid(value: unknown): value is string {
  return typeof value === 'string' && GUID_PATTERN.test(value);
}
