import { describe, expect, it } from 'vitest';
import { handOver, takeOver } from '../../../lib/export/partition-sink';
import type { CellValue } from '../../../lib/export/row-mapper';

describe('handOver / takeOver (row groups sent to the encode worker)', () => {
  it('indexes a column of few distinct strings and rebuilds the same values', () => {
    // Prepare
    const column: CellValue[] = Array.from({ length: 1_000 }, (_, i) =>
      i % 7 === 0 ? null : i % 11 === 0 ? '' : `Zoë, "n" ${i % 5}`,
    );

    // Act
    const handed = handOver(column);

    // Assess
    expect(Array.isArray(handed)).toBe(false);
    expect(takeOver(structuredClone(handed))).toEqual(column);
  });

  it('passes distinct strings, numbers, timestamps and short columns as they are', () => {
    // Prepare
    const ids: CellValue[] = Array.from({ length: 1_000 }, (_, i) => `id-${i}`);
    const numbers: CellValue[] = Array.from({ length: 1_000 }, (_, i) => (i % 3 === 0 ? null : i % 2));
    const late: CellValue[] = Array.from({ length: 1_000 }, (_, i) => (i < 500 ? 'a' : i));
    const times = new Float64Array([1, 2, 3]);
    const short: CellValue[] = ['a', 'a', 'a'];

    // Act / Assess
    expect(handOver(ids)).toBe(ids);
    expect(handOver(numbers)).toBe(numbers);
    expect(handOver(late)).toBe(late);
    expect(handOver(times)).toBe(times);
    expect(handOver(short)).toBe(short);
    expect(takeOver(ids)).toBe(ids);
  });
});
