import { describe, expect, it } from 'vitest';
import { EXPORT_ERROR_CODES } from '../../../../lib/export';
import { tableLocation } from '../../../../lib/export/table';
import { tableIo, writeTableFile } from '../../../../lib/export/table/manifest/manifest-io';
import { LocalDirectoryStore, readObject } from '../../../../lib/stores';
import { useTempDir } from '../../../support/test-scope';

describe('writeTableFile (manifests and manifest lists)', () => {
  const dir = useTempDir('iceberg-create-only-');

  it('creates a table file only where none is: one of its name with other bytes is refused and left as it was', async () => {
    // Prepare
    const store = new LocalDirectoryStore(dir());
    const location = tableLocation(store, 'lake', 'calls');
    const key = 'lake/tables/calls/metadata/a-m0.avro';
    await store.put(key, 'someone else');

    // Act
    const refused = await writeTableFile(tableIo(location), 'a-m0.avro', Buffer.from('ours')).catch(
      (e: unknown) => e,
    );
    const again = await writeTableFile(tableIo(location), 'b-m0.avro', Buffer.from('ours'));
    const retried = await writeTableFile(tableIo(location), 'b-m0.avro', Buffer.from('ours'));

    // Assess: refused and untouched; a retried write of the same bytes (a lost reply) is its own.
    expect(refused).toMatchObject({ code: EXPORT_ERROR_CODES.tableInvalid });
    expect(Buffer.from(await readObject(store, key)).toString('utf8')).toBe('someone else');
    expect(retried).toEqual(again);
  });
});
