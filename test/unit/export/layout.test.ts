import { describe, expect, it } from 'vitest';
import {
  checkLayout,
  ExportConfigError,
  manifestKey,
  type OutputLayout,
  partKey,
  stagedKey,
  stagingRoot,
  tenantPrefix,
} from '../../../lib/export';
import { journalPrefix, stagingOwnerKey } from '../../../lib/export/layout';
import { dataFileKey, tableDataPrefix } from '../../../lib/export/publish/table-publish';

const SINGLE: OutputLayout = { prefix: 'lake', dataset: 'calls', reportId: 'r1', csvExtension: '.csv' };
const ACME: OutputLayout = { ...SINGLE, tenant: 'acme' };

describe('the key layout', () => {
  const file = { reportId: 'r1', dt: '2026-11-25', runId: 'run-1', attempt: '0a1b2c3d', part: 0 };
  /** The keys of a layout, by what they are. */
  const keys = (layout: OutputLayout) => ({
    csv: partKey(layout, 'csv', '2026-11-25', 0),
    manifest: manifestKey(layout, 'parquet', '2026-11-25'),
    formatRoot: tenantPrefix(layout, 'csv'),
    staging: stagingRoot(layout, 'run-1'),
    owner: stagingOwnerKey(layout, 'run-1'),
    journal: journalPrefix(layout, 'run-1'),
    staged: stagedKey(layout, 'run-1', partKey(layout, 'csv', '2026-11-25', 0)),
    dataFile: dataFileKey('lake/tables/calls', { ...file, tenant: layout.tenant }),
    dataRoot: tableDataPrefix('lake/tables/calls', layout.tenant),
  });

  it('without a tenant: the single-tenant keys, as they always were', () => {
    expect(keys(SINGLE)).toEqual({
      csv: 'lake/calls/format=csv/report_id=r1/dt=2026-11-25/part-00000.csv',
      manifest: 'lake/calls/format=parquet/report_id=r1/dt=2026-11-25/_manifest.json',
      formatRoot: 'lake/calls/format=csv',
      staging: 'lake/_staging/run-1',
      owner: 'lake/_staging/run-1/_owner.json',
      journal: 'lake/_staging/run-1/_journal/',
      staged: 'lake/_staging/run-1/calls/format=csv/report_id=r1/dt=2026-11-25/part-00000.csv',
      dataFile: 'lake/tables/calls/data/report_id=r1/dt=2026-11-25/run-1-0a1b2c3d-00000.parquet',
      dataRoot: 'lake/tables/calls/data',
    });
  });

  it("with a tenant: every partition, staging key and data file key lies under the tenant's segment", () => {
    expect(keys(ACME)).toEqual({
      csv: 'lake/calls/format=csv/tenant=acme/report_id=r1/dt=2026-11-25/part-00000.csv',
      manifest: 'lake/calls/format=parquet/tenant=acme/report_id=r1/dt=2026-11-25/_manifest.json',
      formatRoot: 'lake/calls/format=csv/tenant=acme',
      staging: 'lake/_staging/tenant=acme/run-1',
      owner: 'lake/_staging/tenant=acme/run-1/_owner.json',
      journal: 'lake/_staging/tenant=acme/run-1/_journal/',
      staged:
        'lake/_staging/tenant=acme/run-1/calls/format=csv/tenant=acme/report_id=r1/dt=2026-11-25/part-00000.csv',
      dataFile: 'lake/tables/calls/data/tenant=acme/report_id=r1/dt=2026-11-25/run-1-0a1b2c3d-00000.parquet',
      dataRoot: 'lake/tables/calls/data/tenant=acme',
    });
    // With no prefix the keys start at the dataset and at `_staging`.
    expect(keys({ ...ACME, prefix: '' })).toMatchObject({
      csv: 'calls/format=csv/tenant=acme/report_id=r1/dt=2026-11-25/part-00000.csv',
      staging: '_staging/tenant=acme/run-1',
    });
  });

  it('refuses a tenant that is not a tenant id, naming it', () => {
    for (const tenant of ['Acme', 'a/b', '-acme', 'acme-', '', 'x'.repeat(33), 'a=b']) {
      expect(() => checkLayout({ ...SINGLE, tenant })).toThrow(ExportConfigError);
    }
    expect(() => checkLayout({ ...SINGLE, tenant: 'a/b' })).toThrow(/tenant must be .*"a\/b"/);
    expect(() => checkLayout(ACME)).not.toThrow();
  });
});
