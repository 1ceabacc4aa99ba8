import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_ERROR_CODES, exportReportResult } from '../../../lib/export';
import { listAll } from '../../../lib/stores';
import { resultStreamOf, sampleRow } from '../../support/result-stream';
import { startLocalS3 } from '../stores/local-s3';
import { FailingStore, snapshot } from './failing-store';

const rows = (tag: string) =>
  ['2026-05-01T08:00:00', '2026-05-01T23:59:59.999', '2026-05-02T00:00:00', '2026-05-03T12:00:00'].map(
    (start, i) => sampleRow({ connId: `${tag}-${i}`, start }),
  );

describe('exportReportResult on S3 (fauxqs)', () => {
  let s3: Awaited<ReturnType<typeof startLocalS3>>;
  beforeAll(async () => {
    s3 = await startLocalS3('lake');
  });
  afterAll(async () => {
    await s3.close();
  });

  it('publishes the layout, keeps earlier partitions on failure and rewrites identical objects on re-run', async () => {
    // Prepare
    const store = s3.store();
    const options = { store, reportId: 'rep-9', prefix: 'exports/v1', csvGzip: true };
    await exportReportResult({ ...options, source: resultStreamOf(rows('a'), { requestId: 'req-a' }) });
    const earlier = await snapshot(store);

    // Act
    const failed = exportReportResult({
      ...options,
      store: new FailingStore(store, 'copy', 5),
      source: resultStreamOf(rows('b'), { requestId: 'req-b' }),
    });
    await expect(failed).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.publishFailed });
    const afterFailure = await snapshot(store);
    await exportReportResult({ ...options, source: resultStreamOf(rows('a'), { requestId: 'req-a' }) });
    const afterRerun = await snapshot(store);

    // Assess
    expect([...earlier.keys()]).toEqual([
      'exports/v1/calls/format=csv/report_id=rep-9/dt=2026-05-01/_manifest.json',
      'exports/v1/calls/format=csv/report_id=rep-9/dt=2026-05-01/part-00000.csv.gz',
      'exports/v1/calls/format=csv/report_id=rep-9/dt=2026-05-02/_manifest.json',
      'exports/v1/calls/format=csv/report_id=rep-9/dt=2026-05-02/part-00000.csv.gz',
      'exports/v1/calls/format=csv/report_id=rep-9/dt=2026-05-03/_manifest.json',
      'exports/v1/calls/format=csv/report_id=rep-9/dt=2026-05-03/part-00000.csv.gz',
      'exports/v1/calls/format=parquet/report_id=rep-9/dt=2026-05-01/_manifest.json',
      'exports/v1/calls/format=parquet/report_id=rep-9/dt=2026-05-01/part-00000.parquet',
      'exports/v1/calls/format=parquet/report_id=rep-9/dt=2026-05-02/_manifest.json',
      'exports/v1/calls/format=parquet/report_id=rep-9/dt=2026-05-02/part-00000.parquet',
      'exports/v1/calls/format=parquet/report_id=rep-9/dt=2026-05-03/_manifest.json',
      'exports/v1/calls/format=parquet/report_id=rep-9/dt=2026-05-03/part-00000.parquet',
    ]);
    expect(afterFailure).toEqual(earlier);
    expect([...afterRerun.keys()]).toEqual([...earlier.keys()]);
    for (const [key, bytes] of afterRerun) {
      if (!key.endsWith('_manifest.json')) expect([key, bytes]).toEqual([key, earlier.get(key)]);
    }
    expect(await listAll(store, 'exports/v1/_staging/')).toEqual([]);
  });
});
