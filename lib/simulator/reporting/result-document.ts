import type { ReportRunDefinition, SummaryEntry } from '../../spec';
import type { Tenant } from '../seed';
import { abbreviationAt, formatUtcTimestamp, formatWithOffset } from '../time-zone';
import type { CallTally } from './call-generator';
import { DISPLAY_FIELDS, displayFieldsOf } from './display-fields';
import type { StoredReportRequest } from './report-requests';
import { resolveTemplate } from './report-templates';

export { DEFAULT_ROW_LIMIT } from '../defaults';

export { DISPLAY_FIELDS } from './display-fields';

/**
 * What the `summary-mismatch` fault adds to the summary entry (the rows stay as they are),
 * so a client that checks the summary against the rows sees them disagree.
 */
export const SUMMARY_MISMATCH = { ans: 1, duration: 60 } as const;

/** The `request` member of the result: the request as run (displayFields those of its template's rows). */
function runDefinition(request: StoredReportRequest, tenant: Tenant, rowLimit: number): ReportRunDefinition {
  const tz = tenant.timeZoneId;
  const from = formatWithOffset(tz, request.startMs);
  const to = formatWithOffset(tz, request.endMs);
  const { layout } = resolveTemplate(request.report.templateName);
  return {
    requestId: request.requestId,
    dateCreated: formatUtcTimestamp(request.createdMs),
    tenantId: tenant.id,
    reportId: request.report.id,
    reportTemplateName: request.report.templateName,
    filterConditions: [
      { fieldName: 'start', operator: '>=', values: [from] },
      { fieldName: 'start', operator: '<', values: [to] },
    ],
    sortFields: [{ fieldName: layout === 'user-totals' ? 'userNum' : 'start', direction: 0 }],
    displayFields: displayFieldsOf(layout),
    childDisplayFields: [],
    ignoreDisplayFields: false,
    metadata: {
      reportName: request.report.name,
      dateFilter: request.response.dateFilter,
      referenceDate: request.response.referenceDate,
      timeZoneReferenceDate: request.response.referenceDate,
      filterId: request.filterId ?? request.report.defaultFilterId,
      additionalFilters: request.additionalConditions,
      workspaceFilterId: null,
      timezoneDateFrom: from,
      timezoneDateTo: to,
      timeZoneDateCreated: formatWithOffset(tz, request.createdMs),
      timeZoneAbbreviation: abbreviationAt(tz, request.startMs),
    },
    source: 'Reporting',
    pageSize: -1,
    batchSize: -1,
    rowLimit,
    priorityLevel: 0,
    callRatePeriod: 60,
    ignoreAbandonedCalls: false,
    ignoreShortAnsweredCalls: false,
    accountCodeLabels: {},
    ringDurationThresholds: [5, 10, 15, 20, 30],
    incomingEstimatedRevenue: 0,
    incomingCallsPerSale: 0,
    outgoingEstimatedRevenue: 0,
    outgoingCallsPerSale: 0,
    durationGroupPeriodInSeconds: 60,
    timeZoneId: tz,
    countryCode: tenant.countryCode,
    locale: tenant.locale,
    totalTrunks: 0,
    maxRows: 0,
  };
}

/** Text of the result up to and including `"data":[` (totalCount precedes the rows). */
export function resultHead(
  request: StoredReportRequest,
  tenant: Tenant,
  totalCount: number,
  rowLimit: number,
): string {
  const emitted = Math.min(totalCount, rowLimit);
  const head = {
    requestId: request.requestId,
    tenantId: tenant.id,
    request: runDefinition(request, tenant, rowLimit),
    effort: Math.round(emitted / 100) / 10,
    queryDuration: 40 + Math.round(emitted / 2000),
    totalDuration: 55 + Math.round(emitted / 1500),
    queryCount: 1,
    rowLimitExceeded: totalCount > rowLimit,
    totalCount,
  };
  const text = JSON.stringify(head);
  return `${text.slice(0, -1)},"data":[`;
}

/**
 * Text after the rows: summary (totals of the emitted rows, off by {@link SUMMARY_MISMATCH}
 * when `mismatch`), status and row limit.
 */
export function resultTail(tally: CallTally, rowLimit: number, mismatch = false): string {
  const skew = mismatch ? SUMMARY_MISMATCH : { ans: 0, duration: 0 };
  const summary: SummaryEntry[] = [
    {
      ans: tally.ans + skew.ans,
      ref: tally.ref,
      lost: tally.lost,
      ring: tally.ring,
      duration: tally.duration + skew.duration,
    },
  ];
  return `],${JSON.stringify({ summary, status: 1, statusMessage: 'Report processing is complete.', rowLimit }).slice(1)}`;
}

/** How rows are written: objects (the spec) or arrays ordered like `displayFields` (the notes allow both). */
export type RowFormat = 'object' | 'array';

const DISPLAY_FIELD_NAMES = DISPLAY_FIELDS.map((f) => f.fieldName);

/**
 * Passes object batches through, or rewrites them as arrays ordered like `fieldNames` (the
 * result's displayFields; null where a member is omitted).
 */
export function* formatBatches(
  batches: Iterable<string>,
  format: RowFormat,
  fieldNames: readonly string[] = DISPLAY_FIELD_NAMES,
): Generator<string> {
  if (format === 'object') {
    yield* batches;
    return;
  }
  for (const batch of batches) {
    const rows = JSON.parse(`[${batch}]`) as Record<string, unknown>[];
    yield rows.map((row) => JSON.stringify(fieldNames.map((name) => row[name] ?? null))).join(',');
  }
}
