import { describe, expect, it } from 'vitest';
import { outcomeWarnings } from '../../../../lib/cli/shared/run-outcome';

const PARTIAL = {
  heldPartitions: 0,
  held: [],
  partialDays: [{ dt: '2026-12-04', cutOff: '2026-12-04T19:04:21.685Z' }],
};

describe('outcomeWarnings', () => {
  it('warns of a day exported before it ended, naming its cut-off and its provisional rows', () => {
    // Act
    const lines = outcomeWarnings(PARTIAL);

    // Assess
    expect(lines).toEqual([
      'warning: 2026-12-04 is partial: it was exported before the day ended, with the calls up to 2026-12-04T19:04:21.685Z only (its rows carry provisional = true); a run after the day ends publishes it whole and settles it',
    ]);
  });

  it('does not warn of the provisional days of an intraday refresh, which has them by design', () => {
    expect(outcomeWarnings(PARTIAL, { intraday: true })).toEqual([]);
  });
});
