import { describe, expect, it } from 'vitest';
import { emptyQuality, QualityCounter } from '../../../lib/export/rows/quality';
import type { ResultRow } from '../../../lib/spec/types';

/** A deterministic GUID-like id, distinct for each i (its last group is i). */
function guid(i: number): string {
  const a = (Math.imul(i + 1, 0x9e3779b1) >>> 0).toString(16).padStart(8, '0');
  const b = (Math.imul(i + 7, 0x85ebca6b) >>> 0).toString(16).padStart(8, '0');
  return `${a}-${b.slice(0, 4)}-4${b.slice(4, 7)}-8${a.slice(0, 3)}-${i.toString(16).padStart(12, '0')}`;
}

const row = (connId: string | null | undefined, overrides: Partial<ResultRow> = {}): ResultRow =>
  ({
    ...(connId === undefined ? {} : { connId }),
    ans: 1,
    ref: 0,
    lost: 0,
    ring: 1,
    duration: 2,
    ...overrides,
  }) as ResultRow;

describe('QualityCounter', () => {
  it('finds no duplicate among 200,000 distinct connIds and every one once they come again', () => {
    // Prepare: far more ids than the first table's 4,096 slots, so it grows several times.
    const counter = new QualityCounter({ calls: true });
    const n = 200_000;

    // Act
    for (let i = 0; i < n; i++) counter.add('2026-06-01', row(guid(i)));
    const first = { ...counter.byDate.get('2026-06-01') };
    for (let i = 0; i < n; i += 1_000) counter.add('2026-06-01', row(guid(i)));

    // Assess
    expect(new Set(Array.from({ length: n }, (_, i) => guid(i))).size).toBe(n);
    expect(first).toEqual(emptyQuality());
    // Every id kept through the growths: each one sent again is a duplicate.
    expect(counter.byDate.get('2026-06-01')).toEqual({ ...emptyQuality(), duplicateConnId: n / 1_000 });
  });

  it('does not count the same connIds on another date as duplicates', () => {
    // Prepare
    const counter = new QualityCounter({ calls: true });

    // Act
    for (const dt of ['2026-06-01', '2026-06-02', '2026-06-03'])
      for (let i = 0; i < 10_000; i++) counter.add(dt, row(guid(i)));
    counter.add('2026-06-02', row(guid(5)));
    counter.add('2026-06-02', row(guid(5)));

    // Assess
    expect(Object.fromEntries(counter.byDate)).toEqual({
      '2026-06-01': emptyQuality(),
      '2026-06-02': { ...emptyQuality(), duplicateConnId: 2 },
      '2026-06-03': emptyQuality(),
    });
  });

  it('still finds duplicates on a date whose rows come back after the run moved on when rows are unsorted', () => {
    // Prepare: a date of 20,000 ids is left (its table copied into a fuller one and its
    // cleared table reused by the next date), then rows alternate between the two dates.
    const counter = new QualityCounter({ calls: true });
    for (let i = 0; i < 20_000; i++) counter.add('2026-06-01', row(guid(i)));
    for (let i = 0; i < 20_000; i++) counter.add('2026-06-02', row(guid(100_000 + i)));

    // Act: 1,000 ids each date had, 30,000 new ones, alternating date by row.
    for (let i = 0; i < 1_000; i++) {
      counter.add('2026-06-01', row(guid(i * 20)));
      counter.add('2026-06-02', row(guid(100_000 + i * 20)));
    }
    for (let i = 0; i < 15_000; i++) {
      counter.add('2026-06-01', row(guid(200_000 + i)));
      counter.add('2026-06-02', row(guid(300_000 + i)));
    }
    counter.add('2026-06-01', row(guid(214_999)));

    // Assess
    expect(Object.fromEntries(counter.byDate)).toEqual({
      '2026-06-01': { ...emptyQuality(), duplicateConnId: 1_001 },
      '2026-06-02': { ...emptyQuality(), duplicateConnId: 1_000 },
    });
  });

  it('finds duplicates on dates of one connId, or of none, when their rows come back after the run moved on', () => {
    // Prepare: a date with one id, one with only null ids, then a third date.
    const counter = new QualityCounter({ calls: true });
    counter.add('2026-06-01', row(guid(1)));
    counter.add('2026-06-02', row(null));
    counter.add('2026-06-03', row(guid(3)));

    // Act: both dates come back, each twice with the same id.
    for (const dt of ['2026-06-01', '2026-06-02', '2026-06-01', '2026-06-02'])
      counter.add(dt, row(guid(dt === '2026-06-01' ? 1 : 2)));

    // Assess
    expect(Object.fromEntries(counter.byDate)).toEqual({
      '2026-06-01': { ...emptyQuality(), duplicateConnId: 2 },
      '2026-06-02': { ...emptyQuality(), nullConnId: 1, duplicateConnId: 1 },
      '2026-06-03': emptyQuality(),
    });
  });

  it('counts null connIds, negative times and flags outside 0..1 per date for a call list', () => {
    // Prepare
    const counter = new QualityCounter({ calls: true });

    // Act
    counter.add('2026-06-01', row(undefined));
    counter.add('2026-06-01', row(null));
    counter.add('2026-06-01', row(''));
    counter.add('2026-06-01', row('a', { ring: -0.5 }));
    counter.add('2026-06-01', row('b', { duration: -1, ring: -1 }));
    counter.add('2026-06-01', row('c', { ans: 7 }));
    counter.add('2026-06-01', row('d', { ref: -1, lost: 2 }));
    counter.add('2026-06-01', row('e', { ans: '1' as never, ring: '-3' as never }));
    counter.add('2026-06-02', row('a'));

    // Assess
    expect(Object.fromEntries(counter.byDate)).toEqual({
      '2026-06-01': { nullConnId: 3, duplicateConnId: 0, negativeTime: 3, flagOutOfRange: 2 },
      '2026-06-02': emptyQuality(),
    });
  });

  it('counts only negative times for a summary', () => {
    // Prepare
    const counter = new QualityCounter({ calls: false });

    // Act
    counter.add('2026-06-01', row(undefined, { ans: 40, lost: 3, ring: -1 }));
    counter.add('2026-06-01', row('same', { ans: 40 }));
    counter.add('2026-06-01', row('same', { duration: -2 }));

    // Assess
    expect(counter.byDate.get('2026-06-01')).toEqual({ ...emptyQuality(), negativeTime: 2 });
  });
});
