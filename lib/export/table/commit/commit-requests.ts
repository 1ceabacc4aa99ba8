import { randomBytes } from 'node:crypto';
import { forEachLimited } from '../../concurrency';
import { ExportConfigError } from '../../errors';
import { TENANT_ID_PATTERN } from '../../tenant';
import type { TableLocation } from '../metadata/location';
import {
  type NewDataFile,
  type ReportDays,
  reportsOf,
  type TableOverwrite,
} from '../snapshot/replace-partitions';
import { checkDataFile, DataFileMismatch, isDataFileKey, readBounded } from './data-file-check';

/**
 * A grouped commit's request (group-commit.ts): one committer's change to a table (every run
 * of a tenant's execution: several reports' days), written to
 * `<table>/commit-requests/<requestId>.<tenant>.json` before its commit so that any
 * committer's commit can carry it. The request id is time-ordered (a UUIDv7), so the keys
 * list oldest first; a reader refuses a request whose body names another tenant than its key,
 * and checks everything it claims against the objects (validateRequest) before carrying it.
 */
export interface CommitRequest {
  requestId: string;
  tenant: string;
  /** Each report once, its days and files. */
  reports: RequestReport[];
  /** `report-export.*` summary values of the run. */
  summary: Record<string, string>;
  createdAt: number;
  /** No writer commits the request after this instant (its writer may be dead). */
  expiresAt: number;
}

/** A report's part of a request. */
export interface RequestReport extends ReportDays {
  dts: string[];
  files: NewDataFile[];
}

/** The folder of a table's commit requests (shared by its tenants: file names and counts, no data). */
export const COMMIT_REQUESTS_FOLDER = 'commit-requests';
/**
 * Where a committer sets aside a request it found invalid: a small record
 * `<table>/commit-requests-invalid/<requestId>.<tenant>.json` naming it and why (the request
 * itself is deleted, so it costs no later committer a read).
 */
export const INVALID_REQUESTS_FOLDER = 'commit-requests-invalid';
/** A request object larger than this is not read (its size is checked by HEAD first; ours hold a few kB). */
export const MAX_REQUEST_BYTES = 1_000_000;
/**
 * How far a request's `createdAt` may lie from the time in its key (a UUIDv7's milliseconds)
 * and from the reader's clock: Lambda's clocks are NTP-synced to well within it.
 */
export const REQUEST_CLOCK_SKEW_MS = 60_000;
const MAX_FILES = 10_000;
const MAX_REPORTS = 1_000;
const MAX_SUMMARY_KEYS = 20;
const MAX_SUMMARY_VALUE = 8_000;
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

/** The milliseconds of a UUIDv7 (its first 48 bits). */
export function idTime(requestId: string): number {
  return Number.parseInt(requestId.replace(/-/g, '').slice(0, 12), 16);
}

/** The request of a tenant's change, expiring `ttlMs` after `nowMs`. */
export function newRequest(
  change: TableOverwrite & { tenant: string },
  nowMs: number,
  ttlMs: number,
): CommitRequest {
  return {
    requestId: timeOrderedId(nowMs),
    tenant: change.tenant,
    reports: reportsOf(change).map((r) => ({
      reportId: r.reportId,
      dts: [...r.dts],
      files: r.files.map((f) => ({ key: f.key, dt: f.dt, rows: f.rows, bytes: f.bytes })),
    })),
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
export async function readRequest(location: TableLocation, key: string): Promise<CommitRequest | undefined> {
  // The size first: a request of gigabytes is never read (it would be, whole, into memory).
  const info = await location.store.head(key);
  if (info === undefined) return undefined;
  if (info.size > MAX_REQUEST_BYTES)
    throw invalid(key, `it is ${info.size} bytes, larger than ${MAX_REQUEST_BYTES}`);
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readBounded(location.store, key, MAX_REQUEST_BYTES);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'STORE_NOT_FOUND') return undefined;
    throw error;
  }
  if (bytes === undefined) throw invalid(key, `larger than ${MAX_REQUEST_BYTES} bytes`);
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
  if (!Number.isSafeInteger(r.createdAt) || !Number.isSafeInteger(r.expiresAt)) {
    throw invalid(key, 'createdAt and expiresAt must be integers (ms)');
  }
  // A request of the earlier shape (one report at the top) is that one report.
  const rawReports = r.reports ?? [
    {
      reportId: (r as Record<string, unknown>).reportId,
      dts: (r as Record<string, unknown>).dts,
      files: (r as Record<string, unknown>).files,
    },
  ];
  if (!Array.isArray(rawReports) || rawReports.length === 0 || rawReports.length > MAX_REPORTS) {
    throw invalid(key, `reports must be a list of 1 to ${MAX_REPORTS}`);
  }
  const seen = new Set<string>();
  const keys = new Set<string>();
  let fileCount = 0;
  const reports = rawReports.map((raw: Partial<RequestReport> | null): RequestReport => {
    const reportId = raw?.reportId;
    if (
      typeof reportId !== 'string' ||
      !/^[^/\\\s=]{1,200}$/.test(reportId) ||
      reportId === '.' ||
      reportId === '..'
    )
      throw invalid(key, 'bad reportId');
    if (seen.has(reportId)) throw invalid(key, `it lists report ${reportId} twice`);
    seen.add(reportId);
    const dts = raw?.dts;
    if (!Array.isArray(dts) || dts.length > 400 || !dts.every((d) => typeof d === 'string' && DAY.test(d))) {
      throw invalid(key, 'dts must be at most 400 days YYYY-MM-DD');
    }
    const files = raw?.files;
    fileCount += Array.isArray(files) ? files.length : 0;
    if (!Array.isArray(files) || fileCount > MAX_FILES)
      throw invalid(key, `files must be lists of at most ${MAX_FILES} in all`);
    const under = `${location.key}/data/tenant=${named.tenant}/report_id=${reportId}/`;
    for (const f of files as Partial<NewDataFile>[]) {
      const ok =
        typeof f?.key === 'string' &&
        typeof f.dt === 'string' &&
        dts.includes(f.dt) &&
        isDataFileKey(f.key, `${under}dt=${f.dt}/`) &&
        !keys.has(f.key) &&
        Number.isSafeInteger(f.rows) &&
        (f.rows as number) >= 0 &&
        Number.isSafeInteger(f.bytes) &&
        (f.bytes as number) >= 0;
      if (!ok)
        throw invalid(
          key,
          `a file is not one of the tenant's report's days under ${under} (or is listed twice): ${JSON.stringify(f).slice(0, 300)}`,
        );
      keys.add(f.key as string);
    }
    return {
      reportId,
      dts: [...dts] as string[],
      files: (files as NewDataFile[]).map((f) => ({ key: f.key, dt: f.dt, rows: f.rows, bytes: f.bytes })),
    };
  });
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
    reports,
    summary: Object.fromEntries(entries) as Record<string, string>,
    createdAt: r.createdAt as number,
    expiresAt: r.expiresAt as number,
  };
}

/**
 * What a committer checks of another committer's request before it carries it (or lets it
 * lead), beyond its shape (checkRequest): its `createdAt` within REQUEST_CLOCK_SKEW_MS of the
 * time in its own key and not in the reader's future, its life at most `ttlMs` (a request dated
 * in 2255 is invalid, never a live leader), and every file it names stored with the size
 * claimed and the record count its Parquet footer declares (the counts the snapshot carries
 * are the files', never the request's). Throws ExportConfigError saying what is wrong; a store
 * failure passes as it is (transient: the request is not set aside for it).
 */
export async function validateRequest(
  location: TableLocation,
  key: string,
  request: CommitRequest,
  nowMs: number,
  ttlMs: number,
): Promise<CommitRequest> {
  const keyTime = idTime(request.requestId);
  if (Math.abs(request.createdAt - keyTime) > REQUEST_CLOCK_SKEW_MS) {
    throw invalid(
      key,
      `its createdAt ${iso(request.createdAt)} is not the time of its key (${iso(keyTime)})`,
    );
  }
  if (keyTime > nowMs + REQUEST_CLOCK_SKEW_MS)
    throw invalid(key, `it is dated in the future (${iso(keyTime)})`);
  if (request.expiresAt - request.createdAt > ttlMs) {
    throw invalid(
      key,
      `it claims a life of ${request.expiresAt - request.createdAt} ms, more than the ${ttlMs} ms TTL`,
    );
  }
  // Every file at once, a bounded number at a time: a request of thousands of files must not
  // cost the committer carrying it thousands of reads one after the other.
  const claimed = request.reports.flatMap((report, r) => report.files.map((file, f) => ({ file, r, f })));
  const checked: NewDataFile[][] = request.reports.map(() => []);
  // The first invalid (or unreadable) file stops the reading of the others.
  await forEachLimited(claimed, REQUEST_FILE_CHECKS_AT_ONCE, async ({ file, r, f }) => {
    try {
      (checked[r] as NewDataFile[])[f] = await checkDataFile(location.store, file);
    } catch (error) {
      if (error instanceof DataFileMismatch) throw invalid(key, error.message);
      throw error;
    }
  });
  const reports: RequestReport[] = request.reports.map((report, r) => ({
    ...report,
    files: checked[r] as NewDataFile[],
  }));
  return { ...request, reports };
}

/** Files of a request checked at once (each a HEAD and a footer read). */
const REQUEST_FILE_CHECKS_AT_ONCE = 16;

function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
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
