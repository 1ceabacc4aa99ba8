import { describe, expect, it } from 'vitest';
import { heldInRunRecords } from '../../../../lib/cli/shared/run-records';

/** A run record whose one job held `days` days of its report. */
const record = (runId: string, reportName: string, days: number) =>
  JSON.stringify({
    runId,
    startedAt: '2026-11-26T00:00:00Z',
    jobs: [
      {
        reportId: `id-${reportName}`,
        reportName,
        held: Array.from({ length: days }, (_, i) => ({
          dt: `2026-10-${String(i + 1).padStart(2, '0')}`,
          publishedRows: 400,
          rows: 100,
        })),
      },
    ],
  });

describe('heldInRunRecords', () => {
  it('lists every held partition of every record, by day, when they are more than Finalize lists', async () => {
    // Prepare: 2 executions, 15 held days each (Finalize's output lists 20 per execution at most).
    const records = new Map([
      ['runs/dt=2026-11-26/a.json', record('a', 'Calls', 15)],
      ['runs/dt=2026-11-26/b.json', record('b', 'Lost', 15)],
    ]);

    // Act
    const held = await heldInRunRecords([...records.keys()], async (key) => records.get(key) ?? '');

    // Assess
    expect(held).toHaveLength(30);
    expect(held?.[0]).toMatchObject({ dt: '2026-10-01', reportName: 'Calls', publishedRows: 400, rows: 100 });
    expect(held?.map((h) => h.dt)).toEqual([...(held ?? []).map((h) => h.dt)].sort());
  });

  it('is undefined when a record cannot be read, so the caller keeps what Finalize listed', async () => {
    // Act
    const held = await heldInRunRecords(['runs/dt=2026-11-26/gone.json'], () =>
      Promise.reject(new Error('ENOENT')),
    );

    // Assess
    expect(held).toBeUndefined();
  });
});
