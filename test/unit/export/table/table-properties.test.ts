import { describe, expect, it } from 'vitest';
import { TABLE_PROPERTIES, tableProperties } from '../../../../lib/export/table';
import { icebergTableProperties } from '../../../../lib/infra/iceberg-tables';

describe('tableProperties', () => {
  it('keeps column metrics to counts in a table every tenant shares, whoever writes it', () => {
    // Act
    const shared = tableProperties({ tenanted: true });
    const deployed = icebergTableProperties({ tenanted: true });

    // Assess: another writer (Glue's compaction, Athena, Spark) reads this before writing
    // min/max bounds into the manifests every tenant's run reads
    expect(shared['write.metadata.metrics.default']).toBe('counts');
    expect(deployed).toEqual(shared);
  });

  it("leaves a single tenant's table with Iceberg's default metrics", () => {
    // Act
    const own = tableProperties();

    // Assess
    expect(own).toEqual(TABLE_PROPERTIES);
    expect(own['write.metadata.metrics.default']).toBeUndefined();
  });
});
