import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LocalDirectoryStore,
  listAll,
  OBJECT_STORE_ERROR_CODES,
  ObjectStoreError,
  readObject,
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

  it('lists what is there when a concurrent writer deletes keys during the listing', async () => {
    // Prepare: one folder of many keys (a table's commit requests), read as another writer deletes them.
    const store = new LocalDirectoryStore(root);
    const keys = Array.from(
      { length: 400 },
      (_, i) => `t/commit-requests/${String(i).padStart(4, '0')}.json`,
    );
    for (const key of keys) await store.put(key, '{}');

    // Act: each round lists while a delete of every key runs at once
    const rounds: Promise<unknown>[] = [];
    for (let round = 0; round < 5; round++) {
      rounds.push(
        listAll(store, 't/commit-requests/'),
        store.deleteMany(keys.slice(round * 80, round * 80 + 80)),
      );
    }
    const settled = await Promise.allSettled(rounds);

    // Assess: no listing failed; what is left lists whole
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
    expect(await listAll(store, 't/commit-requests/')).toEqual([]);
  });
});

describe('LocalDirectoryStore.putIfAbsent', () => {
  let root: string;
  let store: LocalDirectoryStore;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'local-store-create-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates the object when the key is free and leaves no temp file', async () => {
    // Act
    const created = await store.putIfAbsent('t/metadata/v1.metadata.json', '{"v":1}');

    // Assess
    expect(created).toEqual({ key: 't/metadata/v1.metadata.json', size: 7 });
    expect(Buffer.from(await readObject(store, 't/metadata/v1.metadata.json')).toString()).toBe('{"v":1}');
    expect(await readdir(join(root, 't', 'metadata'))).toEqual(['v1.metadata.json']);
  });

  it('resolves undefined and changes nothing when the key exists', async () => {
    // Prepare
    await store.put('t/v1', 'first');

    // Act
    const second = await store.putIfAbsent('t/v1', Readable.from([Buffer.from('second')]));

    // Assess
    expect(second).toBeUndefined();
    expect(Buffer.from(await readObject(store, 't/v1')).toString()).toBe('first');
    expect(await readdir(join(root, 't'))).toEqual(['v1']);
  });

  it('creates each key once when many creates of it run at once', async () => {
    // Act
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.putIfAbsent('t/one', `writer ${i}`)),
    );

    // Assess
    const winners = results.flatMap((r, i) => (r === undefined ? [] : [i]));
    expect(winners).toHaveLength(1);
    expect(Buffer.from(await readObject(store, 't/one')).toString()).toBe(`writer ${winners[0]}`);
  });
});
