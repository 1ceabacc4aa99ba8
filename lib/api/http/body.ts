import {
  type ApiErrorDetails,
  ProtocolError,
  ResponseTooLargeError,
  UnsupportedContentEncodingError,
} from '../errors';
import { type Attempt, mapAbortOrConnection, TIMEOUT_REASON } from './attempt';
import { contentCodingsOf, DECODED_CONTENT_CODINGS } from './node-fetch';
import type { ServiceErrorBody } from './status-error';

// Reading response bodies: buffered and bounded (status, lists, tokens, errors) or streamed
// (results), each read raced against the attempt's signal; and lenient parsing of them.

/**
 * The reader's next chunk, or the signal's reason once it fires. A listener per read,
 * removed when the read settles: racing every read against one promise that stayed pending
 * for the whole body left a reaction per chunk on it, keeping every chunk reachable until
 * the body ended (~350 MB on a 327 MB result: the end-to-end bench found it).
 */
function readOrAbort<T>(
  reader: ReadableStreamDefaultReader<T>,
  signal: AbortSignal,
): ReturnType<ReadableStreamDefaultReader<T>['read']> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    reader.read().then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Refuses a body in a content coding the client does not decode (`zstd`, `compress`, ...):
 * the fetch hands such a body on as it came, which would read as a body that is not JSON.
 */
export async function checkContentEncoding(response: Response, details: ApiErrorDetails): Promise<void> {
  const header = response.headers.get('content-encoding');
  const decoded: readonly string[] = DECODED_CONTENT_CODINGS;
  for (const coding of contentCodingsOf(header)) {
    if (coding !== 'identity' && !decoded.includes(coding)) {
      await discard(response);
      throw new UnsupportedContentEncodingError(header ?? '', ['identity', ...decoded], details);
    }
  }
}

/**
 * The whole body as text, at most `maxBytes` of it. Bytes are counted as they arrive, after
 * fetch's decompression, so neither a missing or false Content-Length nor a gzip bomb gets
 * past the limit; past it the body is cancelled (the connection is dropped, not drained) and
 * a {@link ResponseTooLargeError} thrown. A Content-Length already over the limit of an
 * uncompressed body fails before any byte is read.
 */
export async function readBoundedText(
  response: Response,
  attempt: Attempt,
  details: ApiErrorDetails,
  maxBytes: number,
): Promise<string> {
  await checkContentEncoding(response, details);
  const encoding = response.headers.get('content-encoding');
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if ((!encoding || encoding === 'identity') && declared > maxBytes) {
    await discard(response);
    throw new ResponseTooLargeError(maxBytes, details);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await readOrAbort(reader, attempt.signal);
      } catch (error) {
        throw mapAbortOrConnection(error, attempt, details, 'Reading the response failed');
      }
      if (chunk.done) break;
      total += chunk.value.byteLength;
      if (total > maxBytes) throw new ResponseTooLargeError(maxBytes, details);
      chunks.push(chunk.value);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  // TextDecoder, like Response.text(): UTF-8, a BOM dropped, bad sequences replaced.
  return new TextDecoder().decode(Buffer.concat(chunks, total));
}

/**
 * The body as chunks, with `idleMs` as the longest wait for the next chunk. The timer runs
 * only while we wait for the server: time the consumer spends on a chunk (an upload applying
 * backpressure) is not idleness. Each read is raced against the attempt's signal, so a
 * timeout or abort ends the wait even when the fetch does not tie its body to the signal.
 */
export async function* streamBody(
  response: Response,
  attempt: Attempt,
  idleMs: number,
  details: ApiErrorDetails,
): AsyncGenerator<Uint8Array> {
  if (!response.body) return;
  const reader = response.body.getReader();
  try {
    for (;;) {
      attempt.timer = setTimeout(() => attempt.controller.abort(TIMEOUT_REASON), idleMs);
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await readOrAbort(reader, attempt.signal);
      } catch (error) {
        throw mapAbortOrConnection(error, attempt, details, 'The response body failed');
      } finally {
        clearTimeout(attempt.timer);
        attempt.timer = undefined;
      }
      if (chunk.done) return;
      yield chunk.value;
    }
  } finally {
    // Stopping early (consumer broke out, or an error) releases the connection.
    reader.cancel().catch(() => undefined);
  }
}

export async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** Reads a service error body leniently; anything unreadable counts as no body. */
export function parseErrorBody(text: string): ServiceErrorBody | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const v = value as Record<string, unknown>;
    return {
      ...(typeof v.message === 'string' ? { message: v.message } : {}),
      ...(typeof v.timestamp === 'string' ? { timestamp: v.timestamp } : {}),
    };
  } catch {
    return undefined;
  }
}

/** JSON.parse that fails with a {@link ProtocolError}. Bodies of any media type are tried. */
export function parseJson(text: string, details: ApiErrorDetails): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ProtocolError('The response is not valid JSON', { ...details, cause: error });
  }
}
