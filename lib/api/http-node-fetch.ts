import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import { constants, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FetchLike } from './http-types';

/**
 * Output chunk of the decompressor. zlib's default (16 KiB) cuts a large result into many
 * small reads, each a turn through the stream machinery; 64 KiB keeps the parser fed in
 * pieces the size of an uncompressed socket read.
 */
const DECODED_CHUNK_BYTES = 64 * 1024;

/** Statuses whose response has no body (fetch's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * Lenient like fetch (and cURL): a body cut short yields what was decoded, so the result
 * parser reports it as a truncated body instead of a zlib error.
 */
function decoderFor(encoding: string | undefined): (Readable & NodeJS.WritableStream) | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip({
        chunkSize: DECODED_CHUNK_BYTES,
        flush: constants.Z_SYNC_FLUSH,
        finishFlush: constants.Z_SYNC_FLUSH,
      });
    case 'deflate':
      return createInflate({
        chunkSize: DECODED_CHUNK_BYTES,
        flush: constants.Z_SYNC_FLUSH,
        finishFlush: constants.Z_SYNC_FLUSH,
      });
    case 'br':
      return createBrotliDecompress({
        chunkSize: DECODED_CHUNK_BYTES,
        flush: constants.BROTLI_OPERATION_FLUSH,
        finishFlush: constants.BROTLI_OPERATION_FLUSH,
      });
    default:
      return undefined;
  }
}

/** A pull-only web stream over a Node stream: nothing is read ahead of the consumer. */
function pullStream(source: Readable): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel() {
        source.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

function responseOf(res: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    headers.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
  }
  const status = res.statusCode ?? 0;
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(status)) {
    res.resume();
    return new Response(null, { status, statusText: res.statusMessage ?? '', headers });
  }
  const encodings = (res.headers['content-encoding'] ?? '').split(',').filter((c) => c.trim() !== '');
  const decoder = encodings.length === 1 ? decoderFor(encodings[0]) : undefined;
  // An encoding we cannot decode is handed on as it came, like fetch does.
  const body: Readable = decoder ? pipeline(res, decoder, () => undefined) : res;
  return new Response(pullStream(body), { status, statusText: res.statusMessage ?? '', headers });
}

/**
 * The transport's default fetch, on `node:http`. Node's fetch (undici) keeps reading the
 * socket while its consumer applies backpressure and copies the whole backlog again on
 * every resume; behind a decompressor that is slower than the wire this turned a large gzip
 * result quadratic (16x slower than the same body uncompressed). Node's own client stops
 * reading the socket instead, and the body is decompressed here with large chunks.
 * Like fetch: asks for gzip, deflate and br, follows no redirects (a 3xx is returned as is),
 * keeps connections alive (Node's global agent), and fails with a `TypeError` whose `cause`
 * is the socket error.
 */
export const nodeHttpFetch: FetchLike = (input, init = {}) => {
  const url = typeof input === 'string' ? new URL(input) : input;
  const method = (init.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  const body = typeof init.body === 'string' ? Buffer.from(init.body, 'utf8') : undefined;
  if (init.body != null && body === undefined) {
    return Promise.reject(new TypeError('nodeHttpFetch sends string bodies only'));
  }
  if (body) headers['content-length'] = String(body.length);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const req = send(url, { method, headers, ...(init.signal ? { signal: init.signal } : {}) }, (res) => {
      try {
        resolve(responseOf(res, method));
      } catch (error) {
        res.destroy();
        reject(new TypeError('fetch failed', { cause: error }));
      }
    });
    req.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
    req.end(body);
  });
};
