import { describe, expect, it } from 'vitest';
import { countByte, countByteJs, SIMD_BYTE_COUNT } from '../../../lib/api/result/byte-count';

const COLON = 0x3a;

/** A deterministic generator (xorshift32), so a failure repeats. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** The count as plainly as it can be written. */
function naive(bytes: Uint8Array, byte: number): number {
  let n = 0;
  for (const b of bytes) if (b === byte) n++;
  return n;
}

describe('countByte', () => {
  it('runs on WebAssembly SIMD when the runtime has it (Node 20 does)', () => {
    // Assess
    expect(SIMD_BYTE_COUNT).toBe(true);
  });

  it('agrees with the plain count on every length 0..100 at every offset 0..16', () => {
    // Prepare: colons among other bytes, both ends included.
    const next = random(1);
    const store = Uint8Array.from({ length: 140 }, () => (next() < 0.3 ? COLON : Math.floor(next() * 256)));

    for (let offset = 0; offset <= 16; offset++) {
      for (let length = 0; length <= 100; length++) {
        // Act
        const bytes = store.subarray(offset, offset + length);

        // Assess
        const expected = naive(bytes, COLON);
        expect(countByte(bytes, COLON), `offset ${offset}, length ${length}`).toBe(expected);
        expect(countByteJs(bytes, COLON), `offset ${offset}, length ${length}`).toBe(expected);
      }
    }
  });

  it.each([
    { kind: 'all colons', fill: COLON, expected: (n: number) => n },
    { kind: 'no colon', fill: 0x3b, expected: () => 0 },
  ])('counts $kind at every length 0..100', ({ fill, expected }) => {
    for (let length = 0; length <= 100; length++) {
      // Act
      const count = countByte(new Uint8Array(length).fill(fill), COLON);

      // Assess
      expect(count, `length ${length}`).toBe(expected(length));
    }
  });

  it('counts any byte value, 0 and 255 included', () => {
    // Prepare
    const next = random(2);
    const bytes = Uint8Array.from({ length: 1000 }, () => Math.floor(next() * 256));

    for (let byte = 0; byte < 256; byte++) {
      // Act / Assess
      expect(countByte(bytes, byte), `byte ${byte}`).toBe(naive(bytes, byte));
    }
  });

  it('counts ranges longer than the module memory, across its page boundary, unaligned', () => {
    // Prepare: a colon on each side of every 64 KiB boundary of the range.
    const next = random(3);
    const store = Uint8Array.from({ length: 200_003 }, () => (next() < 0.05 ? COLON : 0x61));
    const bytes = store.subarray(3);
    for (const at of [65_535, 65_536, 131_071, 131_072]) bytes[at] = COLON;

    // Act / Assess
    expect(countByte(bytes, COLON)).toBe(naive(bytes, COLON));
  });

  it('leaves nothing of a longer range in the next count', () => {
    // Prepare
    countByte(new Uint8Array(70_000).fill(COLON), COLON);

    // Act / Assess
    expect(countByte(new Uint8Array(17), COLON)).toBe(0);
  });
});
