import { GlueClient } from '@aws-sdk/client-glue';
import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  FileCatalog,
  LocalDirectoryStore,
  catalogFromUri as lightCatalogFromUri,
  StoreUriError,
} from '../../../lib/stores';
import { catalogFromUri, GlueCatalog, S3Store } from '../../../lib/stores/aws';

describe('catalogFromUri', () => {
  const lake = () => ({ store: new LocalDirectoryStore('/tmp/lake-not-touched'), prefix: 'exports' });

  it.each([
    { value: 'hive', kind: undefined },
    { value: 'file', kind: 'file' },
    { value: 'glue:report_lake', kind: 'glue' },
  ])('chooses the $kind catalog when the setting is $value', ({ value, kind }) => {
    // Act
    const catalog = catalogFromUri('TABLE_CATALOG', value, lake(), {
      glue: () => new GlueClient({ region: 'eu-west-1' }),
    });

    // Assess
    expect(catalog?.kind).toBe(kind);
    if (kind === 'glue') expect(catalog).toBeInstanceOf(GlueCatalog);
    if (kind === 'file') expect(catalog).toBeInstanceOf(FileCatalog);
  });

  it.each(['', 'iceberg', 'glue:', 'glue:Report Lake', 'FILE', 'file:///tmp/x'])(
    'refuses %j with STORE_URI_INVALID naming the setting',
    (value) => {
      // Act
      const choose = () => catalogFromUri('TABLE_CATALOG', value, lake());

      // Assess
      expect(choose).toThrow(StoreUriError);
      expect(choose).toThrow(/^TABLE_CATALOG /);
    },
  );

  it('places the file catalog tables under <prefix>/tables/<name> of the store', async () => {
    // Prepare
    const store = new S3Store({ client: new S3Client({ region: 'eu-west-1' }), bucket: 'lake-bucket' });
    const catalog = lightCatalogFromUri('TABLE_CATALOG', 'file', { store, prefix: 'exports' });

    // Act
    const refused = await catalog
      ?.commit({ namespace: '', name: 'calls' }, undefined, {
        metadata: '{}',
        location: 's3://lake-bucket/elsewhere/calls',
        columns: [],
      })
      .catch((e: unknown) => e);

    // Assess: the location it expects is named in the refusal (nothing was sent).
    expect(String(refused)).toContain('s3://lake-bucket/exports/tables/calls');
  });

  it('refuses glue: in the entry without the AWS SDK, pointing to lib/stores/aws.ts', () => {
    // Act
    const choose = () => lightCatalogFromUri('TABLE_CATALOG', 'glue:report_lake', lake());

    // Assess
    expect(choose).toThrow(StoreUriError);
    expect(choose).toThrow(/lib\/stores\/aws\.ts/);
  });
});
