import { describe, expect, it } from 'vitest';
import { tableSchema } from '../../../../lib/export/schema';
import { keyOf, parseMetadata, stringifyMetadata, tableLocation, uriOf } from '../../../../lib/export/table';
import {
  newTableMetadata,
  nextMetadata,
  PREVIOUS_VERSIONS_MAX,
} from '../../../../lib/export/table/metadata/metadata';
import type { ObjectStore } from '../../../../lib/stores';

const STORE = { rootUri: 's3://bucket' } as ObjectStore;

describe('table metadata', () => {
  it('keeps snapshot ids beyond 2^53 of other writers exact when read and written back', () => {
    // Prepare: a snapshot Glue's compaction committed (a Java long), and ours.
    const text =
      '{"format-version":2,"current-snapshot-id":7349184938471928374,"snapshots":[{"snapshot-id":7349184938471928374,"parent-snapshot-id":123,"summary":{"operation":"replace","note":"\\"snapshot-id\\":\\"5\\""}}],"snapshot-log":[{"snapshot-id":7349184938471928374,"timestamp-ms":1}],"refs":{"main":{"snapshot-id":7349184938471928374,"type":"branch"}},"schemas":[],"partition-specs":[],"metadata-log":[],"properties":{}}';

    // Act
    const metadata = parseMetadata(text, 'test');
    const written = stringifyMetadata(metadata);

    // Assess
    expect(metadata['current-snapshot-id']).toBe('7349184938471928374');
    expect(metadata.snapshots[0]?.['parent-snapshot-id']).toBe(123);
    expect(written).toBe(text);
  });

  it('writes -1 for no current snapshot and reads it back as none when the table is new', () => {
    // Prepare
    const metadata = newTableMetadata('s3://bucket/lake/tables/calls', tableSchema({ dataset: 'calls' }), 1);

    // Act
    const text = stringifyMetadata(metadata);

    // Assess
    expect(JSON.parse(text)['current-snapshot-id']).toBe(-1);
    expect(parseMetadata(text, 'test')).toEqual(metadata);
  });

  it('bounds the metadata log by write.metadata.previous-versions-max when a commit adds to it', () => {
    // Prepare
    let metadata = newTableMetadata('s3://bucket/lake/tables/calls', tableSchema({ dataset: 'calls' }), 1);
    metadata.properties[PREVIOUS_VERSIONS_MAX] = '2';

    // Act
    for (let v = 1; v <= 4; v++) metadata = nextMetadata(metadata, `v${v}`, 10 * v, () => undefined);

    // Assess
    expect(metadata['metadata-log'].map((e) => e['metadata-file'])).toEqual(['v3', 'v4']);
    expect(metadata['last-updated-ms']).toBe(40);
  });

  it.each([
    's3://bucket/lake/tables/summaries/data/x.parquet',
    's3://bucket/lake/tables/calls',
    's3://bucket/lake/tables/calls/../summaries/x.parquet',
    's3://other/lake/tables/calls/data/x.parquet',
  ])('refuses a file outside the table when its URI is %s', (uri) => {
    // Prepare
    const location = tableLocation(STORE, 'lake', 'calls');

    // Act
    const key = () => keyOf(location, uri);

    // Assess
    expect(key).toThrow(expect.objectContaining({ code: 'EXPORT_TABLE_INVALID' }));
  });

  it('maps a key to the URI the metadata names and back when the file is the table', () => {
    // Prepare
    const location = tableLocation(STORE, 'lake', 'calls');

    // Act
    const uri = uriOf(location, 'lake/tables/calls/data/report_id=r1/dt=2026-11-25/a.parquet');

    // Assess
    expect(location.uri).toBe('s3://bucket/lake/tables/calls');
    expect(uri).toBe('s3://bucket/lake/tables/calls/data/report_id=r1/dt=2026-11-25/a.parquet');
    expect(keyOf(location, uri)).toBe('lake/tables/calls/data/report_id=r1/dt=2026-11-25/a.parquet');
  });
});
