import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalDirectoryStore, type ObjectStore } from '../../../../lib/stores';
import { storeFetch } from '../../../support/store-fetch';

/** The local store under another root URI (as an S3 store names its objects). */
function asBucket(inner: LocalDirectoryStore, rootUri: string): ObjectStore {
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'rootUri') return rootUri;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('storeFetch (test support)', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'store-fetch-'));
    store = new LocalDirectoryStore(root);
    await store.put('t/metadata/v1.metadata.json', '0123456789');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    { name: 'a whole object', init: {}, status: 200, body: '0123456789' },
    { name: 'a closed range', init: { headers: { Range: 'bytes=2-4' } }, status: 206, body: '234' },
    { name: 'an open range', init: { headers: { Range: 'bytes=7-' } }, status: 206, body: '789' },
    { name: 'a HEAD', init: { method: 'HEAD' }, status: 200, body: '' },
  ])('serves $name of a file:// URI under the store', async ({ init, status, body }) => {
    // Act
    const response = await storeFetch(store)(`${store.rootUri}/t/metadata/v1.metadata.json`, init);

    // Assess
    expect(response.status).toBe(status);
    expect(await response.text()).toBe(body);
    if (body === '') expect(response.headers.get('content-length')).toBe('10');
  });

  it('maps the https form icebird gives an s3:// URI to the key when the store is a bucket', async () => {
    // Act
    const response = await storeFetch(asBucket(store, 's3://lake'))(
      'https://lake.s3.amazonaws.com/t/metadata/v1.metadata.json',
    );

    // Assess
    expect(await response.text()).toBe('0123456789');
  });

  it.each([
    'file:///elsewhere/t/metadata/v1.metadata.json',
    'https://other.s3.amazonaws.com/t/metadata/v1.metadata.json',
  ])('answers 404 for a URL outside the store or missing: %s', async (url) => {
    // Act
    const response = await storeFetch(asBucket(store, 's3://lake'))(url);

    // Assess
    expect(response.status).toBe(404);
  });
});
