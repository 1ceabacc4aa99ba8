import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { windowForDates } from '../../../lib/calendar';
import { EXPORT_ERROR_CODES, exportReportResult, RowOutsideWindowError } from '../../../lib/export';
import { LocalDirectoryStore } from '../../../lib/stores';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { snapshot } from './failing-store';

const reportId = 'rep-1';

describe('exportReportResult with rows outside the window', () => {
  let root: string;
  let store: LocalDirectoryStore;
  let earlier: Map<string, string>;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'row-window-'));
    store = new LocalDirectoryStore(root);
    // An earlier run published 5 calls on 05-31.
    await exportReportResult({
      source: resultStreamOf(callsOn(['2026-05-31'], 5, 'old'), { requestId: 'req-old' }),
      store,
      reportId,
      window: windowForDates('2026-05-31', '2026-05-31', 'Europe/London'),
    });
    earlier = await snapshot(store);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** The June window's rows plus one stray call dated the day before the window, as row 3. */
  function strayRows() {
    const rows = callsOn(['2026-06-01', '2026-06-02'], 3, 'new');
    rows.splice(3, 0, ...callsOn(['2026-05-31'], 1, 'stray'));
    return rows;
  }

  it('fails with EXPORT_ROW_OUTSIDE_WINDOW naming the row and publishes nothing when a row is dated before the window', async () => {
    // Prepare
    const window = windowForDates('2026-06-01', '2026-06-02', 'Europe/London');

    // Act
    const run = exportReportResult({ source: resultStreamOf(strayRows()), store, reportId, window });

    // Assess
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RowOutsideWindowError);
    expect(error).toMatchObject({ name: 'RowOutsideWindowError', code: EXPORT_ERROR_CODES.rowOutsideWindow });
    expect((error as Error).message).toContain('Row 3: start 2026-05-31T10:00:00');
    expect((error as Error).message).toContain(`${window.from} .. ${window.to}`);
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('fails with EXPORT_ROW_OUTSIDE_WINDOW when only windowDates is given and a row is on another date', async () => {
    // Act
    const run = exportReportResult({
      source: resultStreamOf(strayRows()),
      store,
      reportId,
      windowDates: ['2026-06-01', '2026-06-02'],
    });

    // Assess
    await expect(run).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.rowOutsideWindow });
    expect(await snapshot(store)).toEqual(earlier);
  });

  it('drops, logs and counts the stray row and leaves the earlier day intact when outsideWindow is drop', async () => {
    // Prepare
    const warnings: { message: string; data: unknown }[] = [];
    const rows = strayRows();

    // Act
    const summary = await exportReportResult({
      source: resultStreamOf(rows, { totalCount: rows.length }),
      store,
      reportId,
      window: windowForDates('2026-06-01', '2026-06-02', 'Europe/London'),
      outsideWindow: 'drop',
      logger: { warn: (message, data) => warnings.push({ message, data }) },
    });

    // Assess
    expect(summary).toMatchObject({ rows: 6, droppedRows: 1 });
    expect(summary.partitions.map((p) => [p.dt, p.rows])).toEqual([
      ['2026-06-01', 3],
      ['2026-06-02', 3],
    ]);
    expect(warnings).toEqual([
      {
        message: expect.stringContaining('outside the window'),
        data: expect.objectContaining({ droppedRows: 1, perDate: { '2026-05-31': 1 } }),
      },
    ]);
    const after = await snapshot(store);
    for (const [key, bytes] of earlier) expect([key, after.get(key)]).toEqual([key, bytes]);
  });

  it('keeps every row and reports none dropped when no window is given', async () => {
    // Act
    // The earlier test's store holds fuller days: force past the shrink guard.
    const summary = await exportReportResult({
      source: resultStreamOf(strayRows()),
      store,
      reportId,
      forceReplace: true,
    });

    // Assess
    expect(summary).toMatchObject({ rows: 7, droppedRows: 0 });
  });
});
