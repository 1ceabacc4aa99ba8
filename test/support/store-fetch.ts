import { afterEach } from 'vitest';
import { type ObjectStore, objectKeyOfUri, readObjectIfPresent } from '../../lib/stores';

/** `https://<bucket>.s3.amazonaws.com/<key>`: what icebird turns an `s3://` location into. */
const S3_HTTPS = /^https:\/\/([^/.]+)\.s3\.amazonaws\.com\/(.+)$/;
/** `bytes=<start>-` or `bytes=<start>-<end>` (end inclusive), the ranges hyparquet asks for. */
const RANGE = /^bytes=(\d+)-(\d*)$/;

/** The object a URL names in `store`: a `file://` URI, or icebird's HTTPS form of an `s3://` one. */
function keyOfUrl(store: ObjectStore, url: string): string | undefined {
  const s3 = S3_HTTPS.exec(url);
  const uri = s3 === null ? url : `s3://${s3[1]}/${s3[2]}`;
  try {
    return objectKeyOfUri(store, uri);
  } catch {
    return undefined;
  }
}

/**
 * A `fetch` serving the objects of `store` (GET, with a Range; HEAD), for readers that read
 * tables over fetch (icebird, hyparquet). Anything else is a 404.
 */
export function storeFetch(store: ObjectStore): typeof fetch {
  return async (input, init) => {
    // Not through `new Request`: it would normalize (percent-encode) the URL the table names.
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const key = keyOfUrl(store, url);
    const bytes = key === undefined ? undefined : await readObjectIfPresent(store, key);
    if (bytes === undefined) return new Response(null, { status: 404, statusText: 'Not Found' });
    if (method === 'HEAD') {
      return new Response(null, { status: 200, headers: { 'content-length': String(bytes.byteLength) } });
    }
    const range = RANGE.exec(headers.get('range') ?? '');
    if (range === null) return new Response(bytes, { status: 200 });
    const start = Number(range[1]);
    const end = range[2] === '' ? bytes.byteLength : Math.min(bytes.byteLength, Number(range[2]) + 1);
    return new Response(bytes.slice(start, end), {
      status: 206,
      headers: { 'content-range': `bytes ${start}-${end - 1}/${bytes.byteLength}` },
    });
  };
}

/**
 * Replaces the global `fetch` with storeFetch(store) until the returned function is called.
 * Installed per test (useStoreFetch), so no other test's requests reach it.
 */
export function installStoreFetch(store: ObjectStore): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = storeFetch(store);
  return () => {
    globalThis.fetch = original;
  };
}

/** A test's store-backed fetch: install it inside the test; it is removed after the test. */
export function useStoreFetch(): (store: ObjectStore) => void {
  const installed: (() => void)[] = [];
  afterEach(() => {
    for (const uninstall of installed.splice(0).reverse()) uninstall();
  });
  return (store) => {
    installed.push(installStoreFetch(store));
  };
}
