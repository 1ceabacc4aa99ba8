import { describe, expect, it } from 'vitest';
import { RowLimitError } from '../../../lib/workflow/errors';
import { splitWindow } from '../../../lib/workflow/split-window';

describe('splitWindow', () => {
  it('splits several days into two day-aligned halves that each own whole partitions', () => {
    const halves = splitWindow(
      { from: '2026-03-28T00:00:00+00:00', to: '2026-03-31T00:00:00+01:00' },
      ['2026-03-28', '2026-03-29', '2026-03-30'],
      'Europe/London',
      15,
    );
    expect(halves).toEqual([
      { from: '2026-03-28T00:00:00+00:00', to: '2026-03-29T00:00:00+00:00' },
      { from: '2026-03-29T00:00:00+00:00', to: '2026-03-31T00:00:00+01:00' },
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
