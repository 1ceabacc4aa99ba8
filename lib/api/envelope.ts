import { type ApiErrorDetails, ProtocolError } from './errors';

/** An envelope read leniently: members the notes say may be missing are optional. */
interface ParsedEnvelope<T> {
  data: T;
  status: string | undefined;
  timestamp: string | undefined;
  pageSize: number | undefined;
  pageIndex: number | undefined;
}

const ENVELOPE_MEMBERS = ['data', 'status', 'timestamp', 'page_size', 'page_index'];

/**
 * Reads the common envelope. `page_size` and `page_index` may be numbers or numeric
 * strings; `status` and `timestamp` may be missing. A body with none of the envelope
 * members is taken as the data itself (the notes warn members may be missing).
 */
export function parseEnvelope(body: unknown, details: ApiErrorDetails): ParsedEnvelope<unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    if (Array.isArray(body))
      return {
        data: body,
        status: undefined,
        timestamp: undefined,
        pageSize: undefined,
        pageIndex: undefined,
      };
    throw new ProtocolError('The response is not a JSON object', details);
  }
  const o = body as Record<string, unknown>;
  if (!('data' in o)) {
    if (ENVELOPE_MEMBERS.some((m) => m in o))
      throw new ProtocolError("The response envelope has no 'data'", details);
    return { data: o, status: undefined, timestamp: undefined, pageSize: undefined, pageIndex: undefined };
  }
  return {
    data: o.data,
    status: typeof o.status === 'string' ? o.status : undefined,
    timestamp: typeof o.timestamp === 'string' ? o.timestamp : undefined,
    pageSize: toOptionalInt(o.page_size),
    pageIndex: toOptionalInt(o.page_index),
  };
}

/** Number or numeric string to a finite number; anything else is undefined. */
export function toOptionalNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Like {@link toOptionalNumber} but only integers. */
export function toOptionalInt(value: unknown): number | undefined {
  const n = toOptionalNumber(value);
  return n !== undefined && Number.isInteger(n) ? n : undefined;
}

/** The data as an array, or a ProtocolError naming what was expected. */
export function expectArray(data: unknown, details: ApiErrorDetails): unknown[] {
  if (Array.isArray(data)) return data;
  // Single-item reads are arrays per the spec; a bare object is accepted as one item.
  if (typeof data === 'object' && data !== null) return [data];
  throw new ProtocolError("Expected an array in 'data'", details);
}

/** The data as an object, or a ProtocolError. */
export function expectObject<T>(data: unknown, details: ApiErrorDetails): T {
  if (Array.isArray(data) && data.length === 1 && typeof data[0] === 'object' && data[0] !== null)
    return data[0] as T;
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) return data as T;
  throw new ProtocolError("Expected an object in 'data'", details);
}
