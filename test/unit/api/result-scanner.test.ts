import { describe, expect, it } from 'vitest';
import { ResultScanner } from '../../../lib/api/result/scanner';
import { rawMembersOf } from '../../../lib/api/result/stream';
import type { ResultRow } from '../../../lib/spec/types';

const MIB = 1024 * 1024;

/** A result whose middle row holds `bigBytes` of text; `nested` adds `},` inside it (fast-path guesses fail). */
function docWithBigRow(bigBytes: number, nested: boolean): Buffer {
  const filler = nested ? '{"k":"v"},'.repeat(Math.ceil(bigBytes / 10)) : 'x'.repeat(bigBytes);
  const big = nested
    ? `{"connId":"big","parts":[${filler}{"k":"v"}]}`
    : `{"connId":"big","userName":"${filler}"}`;
  const rows = `{"connId":"a"},${big},{"connId":"b"}`;
  return Buffer.from(`{"request":{},"totalCount":3,"data":[${rows}],"status":1}`);
}

function feed(scanner: ResultScanner, bytes: Buffer, chunk: number): unknown[] {
  const rows: unknown[] = [];
  for (let i = 0; i < bytes.length; i += chunk) {
    scanner.push(bytes.subarray(i, i + chunk));
    for (const run of scanner.takeRuns()) rows.push(...run);
  }
  return rows;
}

describe('ResultScanner', () => {
  it.each([
    { shape: 'one long string', nested: false },
    { shape: 'nested objects (row ends inside the row)', nested: true },
  ])('scans each byte of a 4 MiB row about once when it arrives in 16 KiB chunks ($shape)', ({ nested }) => {
    // Prepare
    const bytes = docWithBigRow(4 * MIB, nested);
    const scanner = new ResultScanner();
    // Act
    const rows = feed(scanner, bytes, 16 * 1024);
    scanner.finish();
    // Assess
    expect(rows).toHaveLength(3);
    expect(scanner.work.scannedBytes).toBeLessThan(2 * bytes.length);
    expect(scanner.work.parsedBytes).toBeLessThan(2 * bytes.length);
  });

  it('compares member names linearly in the members when a row holds 10,000 undocumented ones', () => {
    // Prepare: the rows ahead of and behind it want few names, the big one 10,000.
    const count = 10_000;
    const members = Array.from({ length: count }, (_, i) => `"m${i}":${i}.50`).join(',');
    const rows = `{"connId":"a","q":1},{"connId":"big",${members}},{"connId":"b","q":2}`;
    const bytes = Buffer.from(`{"request":{},"totalCount":3,"data":[${rows}],"status":1}`);
    const scanner = new ResultScanner();
    // Act
    const [, big] = feed(scanner, bytes, 64 * 1024) as ResultRow[];
    // Assess: comparing every member with every wanted name would be 10^8 comparisons.
    const raw = rawMembersOf(big as ResultRow);
    expect(raw?.size).toBe(count);
    expect(raw?.get('m9999')).toBe('9999.50');
    expect(scanner.work.comparedNames).toBeLessThanOrEqual(2 * (count + 1) + 2 * 2);
  });

  it('reads the same rows whether the body comes whole or in small chunks', () => {
    // Prepare
    const bytes = docWithBigRow(100_000, true);
    // Act
    const whole = feed(new ResultScanner(), bytes, bytes.length);
    const small = feed(new ResultScanner(), bytes, 1000);
    // Assess
    expect(small).toEqual(whole);
    expect(whole).toHaveLength(3);
  });
});
