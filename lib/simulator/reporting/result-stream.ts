import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { constants, createGzip } from 'node:zlib';
import { JSON_CONTENT_TYPE } from '../http/responses';

/** A data-body fault: stop after `afterBytes` uncompressed bytes, by reset or clean end. */
interface BodyCut {
  kind: 'reset' | 'truncate';
  afterBytes: number;
}

interface StreamResultOptions {
  req: IncomingMessage;
  res: ServerResponse;
  head: string;
  /** Row text; an empty batch writes nothing but still lets other requests in. */
  batches: Iterable<string>;
  /** Called after the rows, so totals can be computed while streaming. */
  tail: () => string;
  cut?: BodyCut | undefined;
}

/** Row text written between two turns of the event loop (about 16 batches). */
const TURN_EVERY_CHARS = 1 << 20;

/** Compressed output per write to the socket: few, large chunks of the chunked body. */
const GZIP_CHUNK_BYTES = 64 * 1024;

/** True when Accept-Encoding names gzip with a non-zero quality. */
function acceptsGzip(req: IncomingMessage): boolean {
  const header = req.headers['accept-encoding'];
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function waitForDrain(sink: Writable, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      sink.off('drain', done);
      res.off('close', done);
      resolve();
    };
    sink.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Streams a report result as it is generated: chunked, gzip when accepted, and waiting
 * for 'drain' so a million-row body is served with flat memory. Between batches it
 * yields to the event loop, so one big result never holds up other requests. Stops
 * quietly when the client goes away.
 */
export async function streamResult(options: StreamResultOptions): Promise<void> {
  const { req, res, cut } = options;
  const gzip = acceptsGzip(req);
  res.writeHead(200, {
    'content-type': JSON_CONTENT_TYPE,
    vary: 'Accept-Encoding',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  res.flushHeaders();
  let sink: Writable = res;
  let gzipStream: ReturnType<typeof createGzip> | undefined;
  if (gzip) {
    // Level 1: the body is large and highly repetitive; speed matters more than ratio.
    gzipStream = createGzip({
      level: 1,
      flush: constants.Z_NO_FLUSH,
      chunkSize: GZIP_CHUNK_BYTES,
    });
    gzipStream.pipe(res);
    sink = gzipStream;
  }
  let sent = 0;
  const gone = () => res.destroyed || res.writableEnded;

  /** Writes one piece; false when the stream must stop (cut applied or client gone). */
  const write = async (text: string): Promise<boolean> => {
    if (gone()) return false;
    const buf = Buffer.from(text, 'utf8');
    if (cut && sent + buf.length >= cut.afterBytes) {
      const part = buf.subarray(0, Math.max(0, cut.afterBytes - sent));
      sent += part.length;
      await applyCut(cut, part, sink, gzipStream, res);
      return false;
    }
    sent += buf.length;
    if (!sink.write(buf)) await waitForDrain(sink, res);
    return !gone();
  };

  if (!(await write(options.head))) return;
  let first = true;
  let sinceTurn = 0;
  for (const batch of options.batches) {
    if (batch.length > 0) {
      if (!(await write(first ? batch : `,${batch}`))) return;
      first = false;
      sinceTurn += batch.length;
    }
    // A client that reads fast never makes us wait for 'drain': take a turn of the event
    // loop anyway, so token, status and other requests are served while a result streams.
    // An empty batch is the generator's cue that it looked at many calls without a row.
    if (batch.length === 0 || sinceTurn >= TURN_EVERY_CHARS) {
      sinceTurn = 0;
      await nextTurn();
    }
  }
  if (!(await write(options.tail()))) return;
  sink.end();
}

async function applyCut(
  cut: BodyCut,
  part: Buffer,
  sink: Writable,
  gzipStream: ReturnType<typeof createGzip> | undefined,
  res: ServerResponse,
): Promise<void> {
  if (cut.kind === 'truncate') {
    sink.end(part);
    return;
  }
  await new Promise<void>((resolve) => {
    if (part.length === 0) resolve();
    else sink.write(part, () => resolve());
  });
  if (gzipStream) await new Promise<void>((resolve) => gzipStream.flush(() => resolve()));
  // Let the socket hand what was written to the kernel, then drop the connection mid-body.
  await new Promise<void>((resolve) => setImmediate(resolve));
  res.socket?.destroy();
}
