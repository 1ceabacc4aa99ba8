import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorBody } from '../../spec';
import type { Clock } from '../clock';
import { formatUtcTimestamp } from '../time-zone';
import { InvalidValueError, PayloadTooLargeError } from './errors';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The envelope's timestamp: the clock's milliseconds plus sub-millisecond digits from the process timer. */
function envelopeTimestamp(clock: Clock): string {
  const subMs = (performance.now() % 1) * 10_000;
  return formatUtcTimestamp(clock.now(), subMs);
}

/** Writes a JSON body with an explicit length. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': JSON_CONTENT_TYPE,
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Envelope members beyond data, status and timestamp. */
interface EnvelopeExtras {
  page_size?: number;
  page_index?: number;
}

/** Writes `{data, status, timestamp[, page_size][, page_index]}` in the spec's member order. */
export function sendEnvelope(
  res: ServerResponse,
  clock: Clock,
  status: number,
  data: unknown,
  extras: EnvelopeExtras = {},
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { data, status: 'success', timestamp: envelopeTimestamp(clock), ...extras }, headers);
}

/** Envelope of an array read: page_size is the number of entries. */
export function sendList(
  res: ServerResponse,
  clock: Clock,
  items: unknown[],
  extras: EnvelopeExtras = {},
  headers: Record<string, string> = {},
): void {
  sendEnvelope(res, clock, 200, items, { page_size: items.length, ...extras }, headers);
}

/** The spec's error body. */
export function errorBody(clock: Clock, status: number, message: string): ErrorBody {
  return { error: status, message, status: 'error', timestamp: envelopeTimestamp(clock) };
}

/** 401 with no body (the spec: status line only). */
export function sendUnauthorized(res: ServerResponse): void {
  res.writeHead(401, { 'www-authenticate': 'Bearer', 'content-length': 0 });
  res.end();
}

/** 403 for a valid token without the scope the API needs (RFC 6750 3.1), with the spec's error body. */
export function sendInsufficientScope(res: ServerResponse, clock: Clock, scope: string): void {
  sendJson(res, 403, errorBody(clock, 403, `The access token lacks the scope '${scope}'.`), {
    'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
  });
}

const MAX_BODY_BYTES = 1_048_576;

/** Reads the whole request body as UTF-8 (bounded). */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new PayloadTooLargeError();
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads and parses a JSON body; unparsable text is a 400 naming the text. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req);
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidValueError(text);
  }
}
