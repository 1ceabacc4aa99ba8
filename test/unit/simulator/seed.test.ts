import { describe, expect, it } from 'vitest';
import { createSeed, DEFAULT_SEED, EXTRA_TEMPLATE_REPORTS } from '../../../lib/simulator/seed';

describe('createSeed', () => {
  it('lists only the three call lists in the default workspace when extraTemplates is not set', () => {
    // Act
    const seed = createSeed(DEFAULT_SEED);
    // Assess
    expect(seed.workspaces[0]?.reports.map((r) => r.templateName)).toEqual([
      'CallListByUser',
      'CallListByHuntGroup',
      'LostCalls',
    ]);
  });

  it('adds EXTRA_TEMPLATE_REPORTS after the other reports of the default workspace when extraTemplates is true', () => {
    // Act
    const seed = createSeed(DEFAULT_SEED, { extraTemplates: true });
    // Assess
    const main = seed.workspaces.find((w) => w.default);
    expect(main?.reports.slice(3).map((r) => [r.name, r.templateName])).toEqual([
      ['Call list with details', 'CallListWithDetails'],
      ['Summary by user', 'SummaryByUser'],
    ]);
    expect(EXTRA_TEMPLATE_REPORTS.map(([, templateName]) => templateName)).toEqual([
      'CallListWithDetails',
      'SummaryByUser',
    ]);
    expect(seed.workspaces[1]?.reports).toHaveLength(1);
  });

  it('keeps every other id and derives the extra ids from the seed when extraTemplates is true', () => {
    // Act
    const plain = createSeed(DEFAULT_SEED);
    const extra = createSeed(DEFAULT_SEED, { extraTemplates: true });
    const again = createSeed(DEFAULT_SEED, { extraTemplates: true });
    const other = createSeed(DEFAULT_SEED + 1, { extraTemplates: true });
    // Assess
    const main = extra.workspaces[0];
    expect({
      ...extra,
      workspaces: [{ ...main, reports: main?.reports.slice(0, 3) }, ...extra.workspaces.slice(1)],
    }).toEqual(plain);
    expect(again).toEqual(extra);
    const extraIds = (s: typeof extra) =>
      s.workspaces[0]?.reports.slice(3).flatMap((r) => [r.id, r.defaultFilterId]);
    expect(extraIds(other)).not.toEqual(extraIds(extra));
    expect(new Set(extraIds(extra)).size).toBe(4);
  });
});
