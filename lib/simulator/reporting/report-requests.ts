import type { AdditionalCondition, DateFilter, ReportRequest } from '../../spec';
import { InvalidValueError, WindowTooLongError } from '../http/errors';
import { isGuid } from '../prng';
import type { SeedReport, Tenant } from '../seed';
import { formatWithOffset } from '../time-zone';
import { ALL_DAYS_OF_WEEK, isPresetName, resolvePreset } from './presets';

/**
 * Status values of a report request. The spec shows only `Complete`; the simulator
 * passes through `Queued` then `Running` (see lib/simulator/README.md), and a
 * `report-fail` fault ends in `Failed`.
 */
export const REPORT_STATUS = {
  queued: 'Queued',
  running: 'Running',
  complete: 'Complete',
  failed: 'Failed',
} as const;
type ReportStatus = (typeof REPORT_STATUS)[keyof typeof REPORT_STATUS];

const STATUS_MESSAGES: Record<ReportStatus, string> = {
  Queued: 'Report request is queued.',
  Running: 'Report is being processed.',
  Complete: 'Report processing is complete.',
  Failed: 'Report processing failed.',
};

/** What happens to a request: normal lifecycle, or a fault decided at creation. */
export type RequestFate = { kind: 'normal' } | { kind: 'fail'; message: string } | { kind: 'stuck' };

/** A report request as the service keeps it. */
export interface StoredReportRequest {
  requestId: string;
  workspaceId: string;
  report: SeedReport;
  createdMs: number;
  /** The requested period, [startMs, endMs). */
  startMs: number;
  endMs: number;
  filterId: string | null;
  additionalConditions: AdditionalCondition[];
  /** data of the creation response. */
  response: ReportRequest;
  fate: RequestFate;
}

/** Lifecycle status at `nowMs`: Queued for the first third of the latency, Running until it ends. */
export function statusAt(
  request: StoredReportRequest,
  nowMs: number,
  latencyMs: number,
): {
  status: ReportStatus;
  statusMessage: string;
} {
  const elapsed = nowMs - request.createdMs;
  const { fate } = request;
  let status: ReportStatus;
  if (elapsed < latencyMs / 3) status = REPORT_STATUS.queued;
  else if (elapsed < latencyMs || fate.kind === 'stuck') status = REPORT_STATUS.running;
  else status = fate.kind === 'fail' ? REPORT_STATUS.failed : REPORT_STATUS.complete;
  const statusMessage =
    status === REPORT_STATUS.failed && fate.kind === 'fail' ? fate.message : STATUS_MESSAGES[status];
  return { status, statusMessage };
}

/**
 * Longest fixed range a report request may cover. The spec states no limit; a real
 * service bounds the work one request can ask for, and so does this one, so a typo such
 * as 0001-01-01..9999-12-31 is a 400 rather than minutes of generation. 366 days holds
 * every preset (LastYear in a leap year), a one-day backfill and the 93-day bench window.
 */
export const MAX_WINDOW_DAYS = 366;
const MAX_WINDOW_MS = MAX_WINDOW_DAYS * 86_400_000;

// ISO 8601 date-time that carries an offset (Z or +hh:mm); seconds and fractions optional.
const OFFSET_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** Parses an ISO 8601 date-time with offset to epoch ms; undefined when malformed or not a real date. */
export function parseOffsetDateTime(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = OFFSET_DATE_TIME.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(
    Number,
  ) as number[];
  const check = new Date(Date.UTC(year as number, (month as number) - 1, day as number));
  if (
    check.getUTCMonth() + 1 !== month ||
    check.getUTCDate() !== day ||
    (hour as number) > 23 ||
    (minute as number) > 59 ||
    (second as number) > 59 ||
    Number(m[7] ?? 0) > 18 ||
    Number(m[8] ?? 0) > 59
  ) {
    return undefined;
  }
  const ms = Date.parse(value.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isFinite(ms) ? ms : undefined;
}

/** A validated body of endpoint 2, resolved against the tenant's zone. */
interface ValidatedRun {
  startMs: number;
  endMs: number;
  filterId: string | null;
  additionalConditions: AdditionalCondition[];
  dateFilter: DateFilter;
  /** startTime/endTime for a preset, start/end for a fixed range. */
  period: Pick<ReportRequest, 'startTime' | 'endTime' | 'start' | 'end'>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validateConditions(value: unknown): AdditionalCondition[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new InvalidValueError(value);
  for (const c of value) {
    const ok =
      isRecord(c) &&
      typeof c.fieldName === 'string' &&
      c.fieldName.length > 0 &&
      typeof c.operator === 'string' &&
      c.operator.length > 0 &&
      Array.isArray(c.values) &&
      c.values.every((v) => typeof v === 'string');
    if (!ok) throw new InvalidValueError(c);
  }
  return value as AdditionalCondition[];
}

/**
 * Validates endpoint 2's body. Every failure is a 400 whose message names the offending
 * value; a missing member is named by its member name (e.g. `dateFilter`).
 */
export function validateRunBody(
  body: unknown,
  pathReportId: string,
  tenant: Tenant,
  nowMs: number,
): ValidatedRun {
  if (!isRecord(body)) throw new InvalidValueError(body);
  if (body.reportId === undefined) throw new InvalidValueError('reportId');
  if (!isGuid(body.reportId) || body.reportId.toLowerCase() !== pathReportId.toLowerCase()) {
    throw new InvalidValueError(body.reportId);
  }
  if (body.filterId !== undefined && body.filterId !== null && !isGuid(body.filterId)) {
    throw new InvalidValueError(body.filterId);
  }
  const additionalConditions = validateConditions(body.additionalConditions);
  const filter = body.dateFilter;
  if (filter === undefined) throw new InvalidValueError('dateFilter');
  if (!isRecord(filter)) throw new InvalidValueError(filter);
  const filterId = typeof body.filterId === 'string' ? body.filterId : null;
  if (filter.presetName !== undefined) {
    if (filter.start !== undefined || filter.end !== undefined) throw new InvalidValueError(filter);
    if (!isPresetName(filter.presetName)) throw new InvalidValueError(filter.presetName);
    const resolved = resolvePreset(filter.presetName, tenant.timeZoneId, nowMs);
    return {
      startMs: resolved.startMs,
      endMs: resolved.endMs,
      filterId,
      additionalConditions,
      dateFilter: {
        presetName: filter.presetName,
        presetFilterObject: resolved.presetFilterObject,
        daysOfWeek: ALL_DAYS_OF_WEEK,
      },
      period: {
        startTime: formatWithOffset(tenant.timeZoneId, resolved.startMs),
        endTime: formatWithOffset(tenant.timeZoneId, resolved.endMs),
      },
    };
  }
  if (filter.start === undefined) throw new InvalidValueError('start');
  if (filter.end === undefined) throw new InvalidValueError('end');
  const startMs = parseOffsetDateTime(filter.start);
  if (startMs === undefined) throw new InvalidValueError(filter.start);
  const endMs = parseOffsetDateTime(filter.end);
  if (endMs === undefined || endMs <= startMs) throw new InvalidValueError(filter.end);
  const start = filter.start as string;
  const end = filter.end as string;
  if (endMs - startMs > MAX_WINDOW_MS) throw new WindowTooLongError(start, end, MAX_WINDOW_DAYS);
  return {
    startMs,
    endMs,
    filterId,
    additionalConditions,
    dateFilter: { start, end, daysOfWeek: ALL_DAYS_OF_WEEK },
    period: { start, end },
  };
}
