import { randomBytes } from 'node:crypto';
import { readObject } from '../../stores';
import { ExportConfigError } from '../errors';
import { TENANT_ID_PATTERN } from '../tenant';
import type { NewDataFile, OverwriteChange } from './commit';
import type { TableLocation } from './location';

/**
 * A grouped commit's request (group-commit.ts): one tenant run's change to a table, written
 * to `<table>/commit-requests/<requestId>.<tenant>.json` before its commit so that any
 * writer's commit can carry it. The request id is time-ordered (a UUIDv7), so the keys list
 * oldest first; the tenant in the key lets IAM allow a tenant's session to write only its
 * own requests, and a reader refuses a request whose body names another tenant.
 */
export interface CommitRequest {
  requestId: string;
  tenant: string;
  reportId: string;
  dts: string[];
  files: NewDataFile[];
  /** `report-export.*` summary values of the run. */
  summary: Record<string, string>;
  createdAt: number;
  /** No writer commits the request after this instant (its writer may be dead). */
  expiresAt: number;
}

/** The folder of a table's commit requests (shared by its tenants: file names and counts, no data). */
export const COMMIT_REQUESTS_FOLDER = 'commit-requests';
/** A request object larger than this is not read (ours hold a few files: a few kB). */
export const MAX_REQUEST_BYTES = 1_000_000;
const MAX_FILES = 10_000;
const MAX_SUMMARY_KEYS = 20;
const MAX_SUMMARY_VALUE = 1_000;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
const KEY_NAME = new RegExp(`^(${UUID})\\.([a-z0-9-]{1,32})\\.json$`);
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `<table>/commit-requests/`: where a table's requests are listed. */
export function requestsPrefix(location: TableLocation): string {
  return `${location.key}/${COMMIT_REQUESTS_FOLDER}/`;
}

export function requestKey(
  location: TableLocation,
  request: Pick<CommitRequest, 'requestId' | 'tenant'>,
): string {
  return `${requestsPrefix(location)}${request.requestId}.${request.tenant}.json`;
}

/** A UUIDv7: 48 bits of milliseconds first, so ids (and keys) sort by creation. */
export function timeOrderedId(nowMs: number): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(Math.max(0, Math.floor(nowMs)), 0, 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The request id and tenant a listed key names, undefined for a key that is not a request's. */
export function keyParts(
  location: TableLocation,
  key: string,
): { requestId: string; tenant: string } | undefined {
  const match = KEY_NAME.exec(key.slice(requestsPrefix(location).length));
  if (match === null || !TENANT_ID_PATTERN.test(match[2] as string)) return undefined;
  return { requestId: match[1] as string, tenant: match[2] as string };
}

/** The request of a tenant's change, expiring `ttlMs` after `nowMs`. */
export function newRequest(
  change: OverwriteChange & { tenant: string },
  nowMs: number,
  ttlMs: number,
): CommitRequest {
  return {
    requestId: timeOrderedId(nowMs),
    tenant: change.tenant,
    reportId: change.reportId,
    dts: [...change.dts],
    files: change.files.map((f) => ({ key: f.key, dt: f.dt, rows: f.rows, bytes: f.bytes })),
    summary: { ...change.summary },
    createdAt: nowMs,
    expiresAt: nowMs + ttlMs,
  };
}

/**
 * Reads a listed request; throws ExportConfigError saying what is wrong with it (a request
 * written by another writer is untrusted: it must be one tenant's change of its own
 * partitions, its files under that tenant's data prefix, its summary ours only).
 */
export async function readRequest(location: TableLocation, key: string): Promise<CommitRequest> {
  const bytes = await readObject(location.store, key);
  if (bytes.byteLength > MAX_REQUEST_BYTES) throw invalid(key, `larger than ${MAX_REQUEST_BYTES} bytes`);
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw invalid(key, 'not JSON');
  }
  return checkRequest(location, key, raw);
}

/** The checks of readRequest; a writer runs them on its own request too, before writing it. */
export function checkRequest(location: TableLocation, key: string, raw: unknown): CommitRequest {
  const named = keyParts(location, key);
  const r = raw as Partial<Record<keyof CommitRequest, unknown>> | null;
  if (named === undefined) throw invalid(key, 'its key is not <UUIDv7>.<tenant>.json');
  if (typeof r !== 'object' || r === null) throw invalid(key, 'not an object');
  if (r.requestId !== named.requestId || r.tenant !== named.tenant) {
    throw invalid(key, 'its request id or tenant is not the one its key names');
  }
  if (typeof r.reportId !== 'string' || !/^[^/\\\s]{1,200}$/.test(r.reportId))
    throw invalid(key, 'bad reportId');
  if (!Number.isSafeInteger(r.createdAt) || !Number.isSafeInteger(r.expiresAt)) {
    throw invalid(key, 'createdAt and expiresAt must be integers (ms)');
  }
  const dts = r.dts;
  if (!Array.isArray(dts) || dts.length > 400 || !dts.every((d) => typeof d === 'string' && DAY.test(d))) {
    throw invalid(key, 'dts must be at most 400 days YYYY-MM-DD');
  }
  const files = r.files;
  if (!Array.isArray(files) || files.length > MAX_FILES)
    throw invalid(key, `files must be a list of at most ${MAX_FILES}`);
  const under = `${location.key}/data/tenant=${named.tenant}/report_id=${r.reportId}/`;
  for (const f of files as Partial<NewDataFile>[]) {
    const ok =
      typeof f?.key === 'string' &&
      typeof f.dt === 'string' &&
      dts.includes(f.dt) &&
      f.key.startsWith(`${under}dt=${f.dt}/`) &&
      !f.key.split('/').some((s) => s === '' || s === '.' || s === '..') &&
      Number.isSafeInteger(f.rows) &&
      (f.rows as number) >= 0 &&
      Number.isSafeInteger(f.bytes) &&
      (f.bytes as number) >= 0;
    if (!ok)
      throw invalid(
        key,
        `a file is not one of the tenant's report's days under ${under}: ${JSON.stringify(f)}`,
      );
  }
  const summary = r.summary;
  if (typeof summary !== 'object' || summary === null || Array.isArray(summary))
    throw invalid(key, 'no summary');
  const entries = Object.entries(summary);
  const ours = ([k, v]: [string, unknown]) =>
    k.startsWith('report-export.') &&
    !GROUP_SUMMARY_KEYS.has(k) &&
    typeof v === 'string' &&
    v.length <= MAX_SUMMARY_VALUE;
  if (entries.length > MAX_SUMMARY_KEYS || !entries.every(ours)) {
    throw invalid(key, `its summary must be at most ${MAX_SUMMARY_KEYS} report-export.* strings`);
  }
  return {
    requestId: named.requestId,
    tenant: named.tenant,
    reportId: r.reportId,
    dts: [...dts] as string[],
    files: (files as NewDataFile[]).map((f) => ({ key: f.key, dt: f.dt, rows: f.rows, bytes: f.bytes })),
    summary: Object.fromEntries(entries) as Record<string, string>,
    createdAt: r.createdAt as number,
    expiresAt: r.expiresAt as number,
  };
}

/** Summary keys a grouped commit sets itself (no request may set them). */
export const GROUP_SUMMARY_KEYS: ReadonlySet<string> = new Set([
  'report-export.commit-id',
  'report-export.commit-requests',
  'report-export.commit-request-counts',
]);

function invalid(key: string, why: string): ExportConfigError {
  return new ExportConfigError(`The commit request ${key} is not valid: ${why}`);
}
