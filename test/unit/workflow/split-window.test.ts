import { describe, expect, it } from 'vitest';
import { RowLimitError } from '../../../lib/workflow/errors';
import { splitWindow } from '../../../lib/workflow/split-window';

describe('splitWindow', () => {
  it('splits several days into single local days, each owning its whole partition (DST days included)', () => {
    const days = splitWindow(
      { from: '2026-03-28T00:00:00+00:00', to: '2026-03-31T00:00:00+01:00' },
      ['2026-03-28', '2026-03-29', '2026-03-30'],
      'Europe/London',
      15,
    );
    expect(days).toEqual([
      { from: '2026-03-28T00:00:00+00:00', to: '2026-03-29T00:00:00+00:00' },
      { from: '2026-03-29T00:00:00+00:00', to: '2026-03-30T00:00:00+01:00' },
      { from: '2026-03-30T00:00:00+01:00', to: '2026-03-31T00:00:00+01:00' },
    ]);
  });

  it('splits one day into two pieces of that day in time (23 hours on a spring-forward day)', () => {
    const halves = splitWindow(
      { from: '2026-03-29T00:00:00+00:00', to: '2026-03-30T00:00:00+01:00' },
      ['2026-03-29'],
      'Europe/London',
      15,
    );
    expect(halves).toEqual([
      { from: '2026-03-29T00:00:00+00:00', to: '2026-03-29T11:30:00Z', day: '2026-03-29' },
      { from: '2026-03-29T11:30:00Z', to: '2026-03-30T00:00:00+01:00', day: '2026-03-29' },
    ]);
  });

  it('splits a busy day into enough pieces for each to stay under 90% of the limit, covering the day exactly', () => {
    const pieces = splitWindow(
      { from: '2026-11-18T00:00:00+00:00', to: '2026-11-19T00:00:00+00:00' },
      ['2026-11-18'],
      'Europe/London',
      15,
      { totalCount: 3_500_000, rowLimit: 1_000_000 },
    );
    expect(pieces).toHaveLength(4);
    expect(pieces[0]?.from).toBe('2026-11-18T00:00:00+00:00');
    expect(pieces[3]?.to).toBe('2026-11-19T00:00:00+00:00');
    for (let i = 1; i < pieces.length; i++) expect(pieces[i]?.from).toBe(pieces[i - 1]?.to);
  });

  it('refuses to split below the minimum and says what to do', () => {
    expect(() =>
      splitWindow(
        { from: '2026-03-29T10:00:00Z', to: '2026-03-29T10:20:00Z', day: '2026-03-29' },
        ['2026-03-29'],
        'UTC',
        15,
      ),
    ).toThrow(RowLimitError);
  });
});
