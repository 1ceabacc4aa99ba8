import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LocalDirectoryStore,
  listAll,
  OBJECT_STORE_ERROR_CODES,
  type ObjectStore,
  objectKeyOfUri,
  objectUri,
  readObject,
} from '../../../lib/stores';
import { startLocalS3 } from './local-s3';

interface Adapter {
  name: string;
  store: () => ObjectStore;
}

let root: string;
let s3: Awaited<ReturnType<typeof startLocalS3>>;
let run = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'store-'));
  s3 = await startLocalS3();
});
afterAll(async () => {
  await s3.close();
  await rm(root, { recursive: true, force: true });
});

const ADAPTERS: Adapter[] = [
  { name: 'local directory', store: () => new LocalDirectoryStore(root) },
  // 5 MiB parts so a 12 MiB stream takes the multipart path.
  { name: 'S3 on fauxqs', store: () => s3.store({ partSize: 5 * 1024 * 1024, queueSize: 2 }) },
];

/** A fresh key space per test so tests do not see each other's objects. */
function space(): string {
  run++;
  return `t${run}`;
}

describe.each(ADAPTERS)('ObjectStore contract: $name', (adapter) => {
  it('returns the bytes put when an object is read back', async () => {
    // Prepare
    const store = adapter.store();
    const key = `${space()}/a/b.txt`;

    // Act
    const info = await store.put(key, 'héllo, wörld');

    // Assess
    expect(info.size).toBe(Buffer.byteLength('héllo, wörld'));
    expect(Buffer.from(await readObject(store, key)).toString('utf8')).toBe('héllo, wörld');
    expect(await store.head(key)).toEqual({ key, size: info.size });
  });

  it('stores a multi-part stream whole when the body is larger than a part', async () => {
    // Prepare
    const store = adapter.store();
    const key = `${space()}/big.bin`;
    const chunk = Buffer.alloc(1024 * 1024);
    const chunks = Array.from({ length: 12 }, (_, i) => Buffer.from(chunk.fill(i)));

    // Act
    const info = await store.put(key, Readable.from(chunks));

    // Assess
    expect(info.size).toBe(12 * 1024 * 1024);
    const back = Buffer.from(await readObject(store, key));
    expect(back.equals(Buffer.concat(chunks))).toBe(true);
  });

  it('stores a local file byte for byte and replaces the object when a file is put over a key', async () => {
    // Prepare
    const store = adapter.store();
    const key = `${space()}/from-file.bin`;
    const file = join(root, `source-${run}.bin`);
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256));
    await writeFile(file, bytes);
    await store.put(key, 'old');

    // Act
    const info = await store.putFile(key, file, { contentType: 'application/octet-stream' });

    // Assess
    expect(info).toEqual({ key, size: bytes.length });
    expect(Buffer.from(await readObject(store, key)).equals(bytes)).toBe(true);
    expect((await listAll(store, key)).map((o) => o.key)).toEqual([key]);
  });

  it('rejects with STORE_FAILED naming the key and leaves no object when the local file is missing', async () => {
    // Prepare
    const store = adapter.store();
    const key = `${space()}/missing.bin`;

    // Act
    const put = store.putFile(key, join(root, 'no-such-file.bin'));

    // Assess
    await expect(put).rejects.toMatchObject({ code: OBJECT_STORE_ERROR_CODES.failed, key });
    expect(await store.head(key)).toBeUndefined();
  });

  it.each([
    ['one request', 300_000],
    ['multipart', 12 * 1024 * 1024],
  ])('creates an object from a file with putFileIfAbsent only where no object is (%s)', async (_, length) => {
    // Prepare
    const store = adapter.store();
    const fresh = `${space()}/data/fresh.parquet`;
    const taken = `${space()}/data/taken.parquet`;
    const file = join(root, `source-${run}.bin`);
    const bytes = Buffer.from(Array.from({ length }, (_, i) => (i * 13) % 256));
    await writeFile(file, bytes);
    await store.put(taken, 'committed');

    // Act
    const created = await store.putFileIfAbsent(fresh, file, { contentType: 'application/octet-stream' });
    const refused = await store.putFileIfAbsent(taken, file);

    // Assess
    expect(created).toEqual({ key: fresh, size: length });
    expect(Buffer.from(await readObject(store, fresh)).equals(bytes)).toBe(true);
    expect(refused).toBeUndefined();
    expect(Buffer.from(await readObject(store, taken)).toString('utf8')).toBe('committed');
    expect((await listAll(store, taken)).map((o) => o.key)).toEqual([taken]);
  });

  it('reads a byte range of an object with getRange (a Parquet footer: the tail)', async () => {
    // Prepare
    const store = adapter.store() as ReturnType<Adapter['store']> & {
      getRange(key: string, start: number, end: number): Promise<Uint8Array>;
    };
    const key = `${space()}/f.bin`;
    await store.put(key, '0123456789abcdef');

    // Act
    const tail = await store.getRange(key, 10, 16);
    const middle = await store.getRange(key, 2, 5);

    // Assess
    expect(Buffer.from(tail).toString('utf8')).toBe('abcdef');
    expect(Buffer.from(middle).toString('utf8')).toBe('234');
  });

  it('creates an object with putIfAbsent when no object has the key', async () => {
    // Prepare
    const store = adapter.store();
    const key = `${space()}/metadata/v1.metadata.json`;

    // Act
    const created = await store.putIfAbsent(key, '{"format-version":2}');

    // Assess
    expect(created).toEqual({ key, size: 20 });
    expect(Buffer.from(await readObject(store, key)).toString('utf8')).toBe('{"format-version":2}');
    expect(objectUri(store, key)).toBe(`${store.rootUri}/${key}`);
    expect(objectKeyOfUri(store, objectUri(store, key))).toBe(key);
  });

  it('leaves the object as it is and resolves undefined when putIfAbsent finds the key taken', async () => {
    // Prepare
    const store = adapter.store();
    const key = `${space()}/metadata/v2.metadata.json`;
    await store.putIfAbsent(key, 'first');

    // Act
    const results = await Promise.all(['second', 'third'].map((body) => store.putIfAbsent(key, body)));

    // Assess
    expect(results).toEqual([undefined, undefined]);
    expect(Buffer.from(await readObject(store, key)).toString('utf8')).toBe('first');
  });

  it('replaces the object when a key is put twice', async () => {
    // Prepare
    const store = adapter.store();
    const key = `${space()}/x`;
    await store.put(key, 'old old old');

    // Act
    await store.put(key, 'new');

    // Assess
    expect(Buffer.from(await readObject(store, key)).toString()).toBe('new');
    expect((await listAll(store, key)).map((o) => o.key)).toEqual([key]);
  });

  it('lists keys in ascending order under a string prefix when objects are nested', async () => {
    // Prepare
    const store = adapter.store();
    const s = space();
    for (const k of ['dt=2/p1', 'dt=1/p0', 'dt=10/p0', 'dt=1/p1', 'other/z', 'dt=1x'])
      await store.put(`${s}/${k}`, k);

    // Act
    const all = await listAll(store, `${s}/dt=1`);
    const folder = await listAll(store, `${s}/dt=1/`);

    // Assess
    expect(all.map((o) => o.key)).toEqual([`${s}/dt=1/p0`, `${s}/dt=1/p1`, `${s}/dt=10/p0`, `${s}/dt=1x`]);
    expect(folder.map((o) => o.key)).toEqual([`${s}/dt=1/p0`, `${s}/dt=1/p1`]);
    expect(await listAll(store, `${s}/none/`)).toEqual([]);
  });

  it('copies an object when copy is called, leaving the source', async () => {
    // Prepare
    const store = adapter.store();
    const s = space();
    await store.put(`${s}/from file.bin`, 'payload');

    // Act
    await store.copy(`${s}/from file.bin`, `${s}/to/é.bin`);

    // Assess
    expect(Buffer.from(await readObject(store, `${s}/to/é.bin`)).toString()).toBe('payload');
    expect(await store.head(`${s}/from file.bin`)).toBeDefined();
  });

  it('deletes the listed keys and ignores missing ones when deleteMany is called', async () => {
    // Prepare
    const store = adapter.store();
    const s = space();
    await store.put(`${s}/a`, '1');
    await store.put(`${s}/b`, '2');

    // Act
    await store.deleteMany([`${s}/a`, `${s}/missing`]);

    // Assess
    expect((await listAll(store, `${s}/`)).map((o) => o.key)).toEqual([`${s}/b`]);
  });

  it('reports missing objects when a key does not exist', async () => {
    // Prepare
    const store = adapter.store();
    const key = `${space()}/nothing`;

    // Act
    const head = await store.head(key);
    const get = store.get(key).then(async (stream) => {
      for await (const _ of stream) {
        // drain
      }
    });

    // Assess
    expect(head).toBeUndefined();
    await expect(get).rejects.toMatchObject({ code: OBJECT_STORE_ERROR_CODES.notFound });
  });

  it.each(['', '/abs', 'a//b', 'a/../b', 'a/./b', 'back\\slash'])(
    'rejects the key %j when it is not a valid key',
    async (key) => {
      // Prepare
      const store = adapter.store();

      // Act
      const put = store.put(key, 'x');

      // Assess
      await expect(put).rejects.toMatchObject({ code: OBJECT_STORE_ERROR_CODES.invalidKey });
    },
  );
});
