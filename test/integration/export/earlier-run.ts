import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportReportResult } from '../../../lib/export';
import type { ResultRow } from '../../../lib/spec/types';
import { LocalDirectoryStore } from '../../../lib/stores';
import { callsOn, resultStreamOf } from '../../support/result-stream';
import { snapshot } from './failing-store';

/** Calls over `days` days from 2026-06-01, `perDay` each, in time order. */
export function calls(days: number, perDay: number, tag: string): ResultRow[] {
  const dates = Array.from({ length: days }, (_, d) =>
    new Date(Date.UTC(2026, 5, 1 + d)).toISOString().slice(0, 10),
  );
  return callsOn(dates, perDay, tag);
}

/** A lake in a fresh directory that an earlier run published, and its bytes then. */
export interface EarlierRun {
  root: string;
  store: LocalDirectoryStore;
  earlier: Map<string, string>;
}

/**
 * A fresh directory store (`prefix` names it) holding an earlier run of `reportId`: 3 days,
 * 3 parts per partition (file cap 4 rows, 10 rows a day). The caller removes `root`.
 */
export async function earlierRun(prefix: string, reportId: string): Promise<EarlierRun> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const store = new LocalDirectoryStore(root);
  await exportReportResult({
    source: resultStreamOf(calls(3, 10, 'old'), { requestId: 'req-old' }),
    store,
    reportId,
    maxRowsPerFile: 4,
  });
  return { root, store, earlier: await snapshot(store) };
}
