import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LocalDirectoryStore,
  listAll,
  OBJECT_STORE_ERROR_CODES,
  ObjectStoreError,
} from '../../../lib/stores';

describe('LocalDirectoryStore keys', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'local-store-keys-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    { name: 'a folder segment is longer than 255 bytes', key: `a/${'d'.repeat(256)}/part.csv` },
    { name: 'a folder segment of 128 two-byte characters is 256 bytes', key: `${'é'.repeat(128)}/x` },
    { name: 'the last segment leaves no room for the temp suffix', key: `a/${'f'.repeat(214)}` },
    { name: 'a segment holds the temp-file marker', key: 'a/part.csv.~tmp-1' },
  ])(
    'rejects the key with STORE_KEY_INVALID naming it before touching the disk when $name',
    async ({ key }) => {
      // Act
      const put = store.put(key, 'x');

      // Assess
      const error = await put.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ObjectStoreError);
      expect(error).toMatchObject({
        name: 'ObjectStoreError',
        code: OBJECT_STORE_ERROR_CODES.invalidKey,
        key,
      });
      expect((error as Error).message).toContain(key);
      expect(await readdir(root)).toEqual([]);
    },
  );

  it('rejects a copy to a key it cannot hold with STORE_KEY_INVALID and creates no folder', async () => {
    // Prepare
    await store.put('src.txt', 'x');
    const target = `${'d'.repeat(300)}/copy.txt`;

    // Act
    const copy = store.copy('src.txt', target);

    // Assess
    await expect(copy).rejects.toMatchObject({ code: OBJECT_STORE_ERROR_CODES.invalidKey, key: target });
    expect(await readdir(root)).toEqual(['src.txt']);
  });

  it('stores keys at the longest segments it can hold when they are 255 and 213 bytes', async () => {
    // Prepare
    const key = `${'d'.repeat(255)}/${'f'.repeat(213)}`;

    // Act
    await store.put(key, 'x');

    // Assess
    expect(await listAll(store, '')).toEqual([{ key, size: 1 }]);
  });
});

describe('LocalDirectoryStore deletes', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'local-store-deletes-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('leaves no empty directory behind when it deletes the last objects under a prefix (a run staging)', async () => {
    const store = new LocalDirectoryStore(root);
    await store.put('lake/_staging/run-1/calls/dt=2026-11-18/part-00000.csv', 'a');
    await store.put('lake/_staging/run-1/calls/dt=2026-11-19/part-00000.csv', 'b');
    await store.put('lake/calls/dt=2026-11-18/part-00000.csv', 'kept');
    await store.deleteMany((await listAll(store, 'lake/_staging/')).map((o) => o.key));
    expect(await readdir(join(root, 'lake'))).toEqual(['calls']);
    expect((await listAll(store, 'lake/')).map((o) => o.key)).toEqual([
      'lake/calls/dt=2026-11-18/part-00000.csv',
    ]);
  });

  it('writes an object whose directory a concurrent delete has just pruned', async () => {
    const store = new LocalDirectoryStore(root);
    await store.put('a/b/one', '1');
    await Promise.all([store.deleteMany(['a/b/one']), store.put('a/b/two', '2')]);
    expect((await listAll(store, 'a/')).map((o) => o.key)).toEqual(['a/b/two']);
  });
});
