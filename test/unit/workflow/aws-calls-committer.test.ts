import { describe, expect, it } from 'vitest';
import { functionStoreUses, type StoreUse } from '../../../lib/workflow/aws-calls';

const ENV = {
  OBJECT_STORE_URI: 's3://lake-bucket/lake',
  LEASE_STORE_URI: 's3://lake-bucket/leases',
  SECRET_URI: 'secretsmanager:arn:aws:secretsmanager:eu-west-1:123456789012:secret:report-export-AbCdEf',
  REPORTS: JSON.stringify([{ id: 'r1', name: 'Calls' }]),
};
const READS = new Set(['get', 'head', 'list', 'load']);

/** The uses that write a table's metadata or move its catalog pointer. */
function metadataWrites(uses: readonly StoreUse[]): string[] {
  return uses
    .filter((u) => !READS.has(u.operation))
    .filter((u) =>
      u.store === 'catalog' ? true : 'key' in u && /^lake\/tables\/[a-z_]+\/metadata\//.test(u.key),
    )
    .map((u) => `${u.operation} ${u.why}`);
}

describe('the declared calls of one committer (lib/workflow/aws-calls.ts)', () => {
  it.each(['file', 'glue:report_export'])(
    'gives ExportResults and SyncDirectories no metadata write and the Commit function (PrepareTables, Commit) them (TABLE_CATALOG=%s)',
    (catalog) => {
      // Act
      const env = { ...ENV, TABLE_CATALOG: catalog };
      const exporter = functionStoreUses('exportResults', env);
      const syncer = functionStoreUses('syncDirectories', env);
      const committer = functionStoreUses('commit', env);

      // Assess: the reads are declared for all; the writes only for the committer.
      expect(exporter.some((u) => u.why === "read the calls table's metadata")).toBe(true);
      expect(metadataWrites(exporter)).toEqual([]);
      expect(syncer.some((u) => u.why === "read the contacts table's metadata")).toBe(true);
      expect(metadataWrites(syncer)).toEqual([]);
      const writes = metadataWrites(committer);
      for (const dataset of ['calls', 'summaries', 'contacts', 'contact_phones']) {
        expect(writes.some((w) => w.startsWith('putIfAbsent') && w.includes(`the ${dataset} table`))).toBe(
          true,
        );
        if (catalog !== 'file') expect(writes).toContain(`commit commit to the ${dataset} table`);
      }
    },
  );
});
