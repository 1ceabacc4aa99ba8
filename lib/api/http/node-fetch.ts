import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Duplex, pipeline, Readable } from 'node:stream';
import {
  constants,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  type ZlibOptions,
} from 'node:zlib';
import type { FetchLike } from './types';

/**
 * Output chunk of the decompressor. zlib's default (16 KiB) cuts a large result into many
 * small reads, each a turn through the stream machinery; 64 KiB keeps the parser fed in
 * pieces the size of an uncompressed socket read.
 */
const DECODED_CHUNK_BYTES = 64 * 1024;

/** Statuses whose response has no body (fetch's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Methods that carry a body: sent with `content-length: 0` when they have none, like fetch. */
const PAYLOAD_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Most codings decoded in a chain; more fails the request (fetch's limit, against a chain of bombs). */
const MAX_CODINGS = 5;

/**
 * Lenient like fetch (and cURL): a body cut short yields what was decoded, so the result
 * parser reports it as a truncated body instead of a zlib error.
 */
const LENIENT_ZLIB: ZlibOptions = {
  chunkSize: DECODED_CHUNK_BYTES,
  flush: constants.Z_SYNC_FLUSH,
  finishFlush: constants.Z_SYNC_FLUSH,
};

/**
 * The content codings the client decodes (and asks for). Not `zstd`: Node 20, this project's
 * floor, has no decoder, and Node 22's (zlib.createZstdDecompress, from 22.15) is still
 * experimental; a server may send only codings the client asked for, so a zstd body is a
 * server's mistake, refused by name (UnsupportedContentEncodingError).
 */
export const DECODED_CONTENT_CODINGS = ['gzip', 'x-gzip', 'deflate', 'br'] as const;

/** A decoder for one content coding, or undefined when it is not one we decode. */
function decoderFor(coding: string): Duplex | undefined {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip(LENIENT_ZLIB);
    case 'deflate':
      return lenientInflate();
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

/**
 * `deflate` as fetch reads it: zlib-wrapped as the RFC says, or raw deflate as some servers
 * send it, told apart by the first byte (a zlib header's low nibble is 8, the method).
 */
function lenientInflate(): Duplex {
  return Duplex.from(async function* (source: AsyncIterable<Buffer>) {
    const chunks = source[Symbol.asyncIterator]();
    let first = await chunks.next();
    while (!first.done && first.value.length === 0) first = await chunks.next();
    if (first.done) return;
    const head: Buffer = first.value;
    const inflate =
      ((head[0] as number) & 0x0f) === 0x08 ? createInflate(LENIENT_ZLIB) : createInflateRaw(LENIENT_ZLIB);
    const input = Readable.from(
      (async function* () {
        yield head;
        for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
      })(),
      { objectMode: false },
    );
    yield* pipeline(input, inflate, () => undefined) as AsyncIterable<Buffer>;
  });
}

/**
 * The codings of a Content-Encoding to undo, in the order to undo them (the last applied
 * first), like fetch: empty when one is not ours to decode (the body is handed on as it
 * came), and a failure past {@link MAX_CODINGS}.
 */
function codingsOf(header: string | undefined): string[] {
  const codings = contentCodingsOf(header).filter((c) => c !== 'identity');
  if (codings.length > MAX_CODINGS) {
    throw new Error(
      `too many content-encodings in response: ${codings.length}, maximum allowed is ${MAX_CODINGS}`,
    );
  }
  const known: readonly string[] = DECODED_CONTENT_CODINGS;
  return codings.every((c) => known.includes(c)) ? codings.reverse() : [];
}

/** The codings a Content-Encoding lists, lower case, in the order they were applied. */
export function contentCodingsOf(header: string | null | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '');
}

/**
 * A pull-only web stream over a Node stream: nothing is read ahead of the consumer, so a
 * consumer that stops reading stops the socket (Node pauses it once its small buffer is
 * full). Failures read like fetch's: the signal's reason after an abort, else a `TypeError`
 * ('terminated') whose cause is the socket or decoder error.
 */
function pullStream(source: Readable, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: IteratorResult<Buffer>;
        try {
          next = await chunks.next();
        } catch (error) {
          throw signal?.aborted ? signal.reason : new TypeError('terminated', { cause: error });
        }
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel() {
        // Destroys the decoders and the response: its socket is closed, not reused.
        source.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

function responseOf(res: IncomingMessage, method: string, signal: AbortSignal | undefined): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    headers.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
  }
  const status = res.statusCode ?? 0;
  const init = { status, statusText: res.statusMessage ?? '', headers };
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(status)) {
    res.resume();
    return new Response(null, init);
  }
  const decoders = codingsOf(res.headers['content-encoding']).map((c) => decoderFor(c) as Duplex);
  // pipeline destroys every stage when one fails or the last is destroyed (a cancel).
  const body: Readable =
    decoders.length === 0 ? res : (pipeline([res, ...decoders], () => undefined) as unknown as Readable);
  return new Response(pullStream(body, signal), init);
}

/** A request body as bytes: the transport sends strings; bytes and form parameters work too. */
function bytesOf(body: RequestInit['body']): Buffer | undefined {
  if (body == null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof URLSearchParams) return Buffer.from(body.toString(), 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError('nodeHttpFetch sends string, URLSearchParams and byte bodies only');
}

/**
 * The transport's default fetch, on `node:http`. Node's fetch (undici) queues what the
 * socket delivers while its consumer applies backpressure and copies that backlog again on
 * every resume; behind a decompressor that is slower than the wire this made a large gzip
 * result 16x slower than the same body uncompressed. Here the body is pulled only when the
 * consumer reads (Node pauses the socket once the response's small buffer is full) and is
 * decompressed with large chunks.
 *
 * Like fetch, as far as the transport relies on it: asks for gzip, deflate and br and
 * decodes them (a chain of up to five; an unknown coding leaves the body as it came, for the
 * transport to refuse by name); follows
 * no redirects (a 3xx is returned as is, whatever `redirect` says, which the transport turns
 * into a `RedirectError`); keeps connections alive (Node's global agent, which closes an idle
 * socket a second before the server's `Keep-Alive: timeout` hint); rejects with the signal's
 * reason once it is aborted, before the connection, during the headers or while the body is
 * read; and fails with a `TypeError` whose `cause` is the socket error ('fetch failed', or
 * 'terminated' for the body), so `cause.code` tells a refused connection from a reset.
 * HTTPS uses Node's trust store (`NODE_EXTRA_CA_CERTS` applies as it does to fetch).
 */
export const nodeHttpFetch: FetchLike = (input, init = {}) => {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<Response>((resolve, reject) => {
    const fail = (error: unknown): void =>
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
    let req: ClientRequest;
    try {
      const url = new URL(input);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new Error(`unsupported protocol ${url.protocol}`);
      }
      const method = (init.method ?? 'GET').toUpperCase();
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => {
        headers[name] = value;
      });
      headers['accept-encoding'] ??= 'gzip, deflate, br';
      const body = bytesOf(init.body);
      if (body && (method === 'GET' || method === 'HEAD')) {
        throw new TypeError('Request with GET/HEAD method cannot have body.');
      }
      if (body || PAYLOAD_METHODS.has(method)) headers['content-length'] = String(body?.length ?? 0);
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      req = send(url, { method, headers, ...(signal ? { signal } : {}) }, (res) => {
        try {
          resolve(responseOf(res, method, signal));
        } catch (error) {
          res.destroy();
          fail(error);
        }
      });
      req.end(body);
    } catch (error) {
      // A bad URL, header or body: no request was made, and fetch rejects with a TypeError too.
      reject(error instanceof TypeError ? error : new TypeError('fetch failed', { cause: error }));
      return;
    }
    // Also the abort of `signal` (Node destroys the request with an AbortError).
    req.on('error', fail);
  });
};
