import { randomUUID } from 'node:crypto';
import type { ReportRequest, ReportRequestStatus } from '../../spec';
import type { Clock } from '../clock';
import type { FaultController } from '../faults';
import type { HostedTenant, HostedTenants } from '../hosted-tenants';
import { InvalidValueError, NotFoundError, ReportNotReadyError } from '../http/errors';
import { readJsonBody, sendEnvelope, sendList } from '../http/responses';
import type { RouteContext, Router } from '../http/router';
import { isGuid } from '../prng';
import type { SeedReport, SeedWorkspace } from '../seed';
import { formatUtcTimestamp, formatWithOffset } from '../time-zone';
import { type CallTally, emptyTally } from './call-generator';
import { fieldNamesOf } from './display-fields';
import {
  REPORT_STATUS,
  type RequestFate,
  type StoredReportRequest,
  statusAt,
  validateRunBody,
} from './report-requests';
import { type CallFilter, type RowLayout, resolveTemplate } from './report-templates';
import { formatBatches, type RowFormat, resultHead, resultTail } from './result-document';
import { streamResult } from './result-stream';
import { renderUserTotals, sumOfUsers } from './user-totals';

interface ReportingDeps {
  /** Every id of a path is looked up among the token's tenant's (another tenant's is a 404). */
  tenants: HostedTenants;
  clock: Clock;
  faults: FaultController;
  /** Time a request spends in Queued/Running before Complete. */
  latencyMs: number;
  rowLimit: number;
  /** Rows as objects (the spec) or as arrays ordered like request.displayFields (the notes). */
  rowFormat: RowFormat;
  /** Every result's summary disagrees with its rows (as the `summary-mismatch` fault does once). */
  summaryMismatch?: boolean;
}

/** The rows of a result: how many match, their JSON text, and their totals once written. */
interface ResultRows {
  totalCount: number;
  batches: Iterable<string>;
  totals: () => CallTally;
}

/** Parses optional `pageIndex`/`pageSize` (0-based, like the sibling APIs); 400 names a bad value. */
function paging(url: URL): { index: number; size: number } {
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const raw = url.searchParams.get(name);
    if (raw === null) return fallback;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > max) throw new InvalidValueError(raw);
    return n;
  };
  return { index: read('pageIndex', 0, 0, 1_000_000), size: read('pageSize', 1000, 1, 1000) };
}

/** Registers endpoints 1-4 and GET /v1.0/workspaces (the status and data ones under both spellings). */
export function registerReportingRoutes(router: Router, deps: ReportingDeps): void {
  const { tenants, clock } = deps;

  const workspaceOf = (tenant: HostedTenant, id: string | undefined): SeedWorkspace => {
    if (!isGuid(id)) throw new InvalidValueError(id);
    const ws = tenant.seed.workspaces.find((w) => w.id === id.toLowerCase());
    if (!ws) throw new NotFoundError();
    return ws;
  };
  const reportOf = (ws: SeedWorkspace, id: string | undefined): SeedReport => {
    if (!isGuid(id)) throw new InvalidValueError(id);
    const report = ws.reports.find((r) => r.id === id.toLowerCase());
    if (!report) throw new NotFoundError();
    return report;
  };
  const requestOf = (ctx: RouteContext): { tenant: HostedTenant; request: StoredReportRequest } => {
    const { params } = ctx;
    const tenant = tenants.of(ctx);
    const ws = workspaceOf(tenant, params.workspaceId);
    const report = reportOf(ws, params.reportId);
    const id = params.requestId;
    if (!isGuid(id)) throw new InvalidValueError(id);
    const request = tenant.requests.get(id.toLowerCase());
    if (!request || request.workspaceId !== ws.id || request.report.id !== report.id)
      throw new NotFoundError();
    return { tenant, request };
  };

  router.add('GET', '/v1.0/workspaces', 'workspaces', (ctx) => {
    sendList(
      ctx.res,
      clock,
      tenants.of(ctx).seed.workspaces.map((w) => ({ id: w.id, name: w.name, default: w.default })),
    );
  });

  router.add('GET', '/v1.0/workspaces/:workspaceId/reports', 'reports', (ctx) => {
    const { res, url, params } = ctx;
    const ws = workspaceOf(tenants.of(ctx), params.workspaceId);
    const { index, size } = paging(url);
    const page = ws.reports.slice(index * size, index * size + size).map((r) => ({ id: r.id, name: r.name }));
    sendList(res, clock, page, { page_index: index });
  });

  router.add('POST', '/v1.0/workspaces/:workspaceId/reports/:reportId/requests', 'request', async (ctx) => {
    const tenant = tenants.of(ctx);
    const { tenant: settings } = tenant.seed;
    const ws = workspaceOf(tenant, ctx.params.workspaceId);
    const report = reportOf(ws, ctx.params.reportId);
    const body = await readJsonBody(ctx.req);
    const now = clock.now();
    const run = validateRunBody(body, report.id, settings, now);
    const fault = deps.faults.take('request', ['report-fail', 'report-stuck']);
    const fate: RequestFate =
      fault?.kind === 'report-fail'
        ? { kind: 'fail', message: fault.statusMessage ?? 'Report processing failed.' }
        : fault?.kind === 'report-stuck'
          ? { kind: 'stuck' }
          : { kind: 'normal' };
    const requestId = randomUUID();
    const response: ReportRequest = {
      requestId,
      locale: settings.locale,
      reportId: report.id,
      referenceDate: formatWithOffset(settings.timeZoneId, now),
      dateFilter: run.dateFilter,
      ...run.period,
    };
    tenant.requests.set(requestId, {
      requestId,
      workspaceId: ws.id,
      report,
      createdMs: now,
      startMs: run.startMs,
      endMs: run.endMs,
      filterId: run.filterId,
      additionalConditions: run.additionalConditions,
      response,
      fate,
    });
    sendEnvelope(ctx.res, clock, 200, response);
  });

  const status = (ctx: RouteContext) => {
    const { tenant, request } = requestOf(ctx);
    const current = statusAt(request, clock.now(), deps.latencyMs);
    const data: ReportRequestStatus = {
      dateCreated: formatUtcTimestamp(request.createdMs),
      tenantId: tenant.id,
      requestId: request.requestId,
      reportId: request.report.id,
      status: current.status,
      statusMessage: current.statusMessage,
      reportTemplateName: request.report.templateName,
    };
    sendEnvelope(ctx.res, clock, 200, data);
  };

  const data = async (ctx: RouteContext) => {
    const { tenant, request } = requestOf(ctx);
    const current = statusAt(request, clock.now(), deps.latencyMs);
    if (current.status !== REPORT_STATUS.complete) {
      throw new ReportNotReadyError(`Report request is not complete (status ${current.status}).`);
    }
    const { filter, layout } = resolveTemplate(request.report.templateName);
    const mismatch =
      deps.summaryMismatch === true ||
      deps.faults.take('data', ['summary-mismatch'], { reportId: request.report.id }) !== undefined;
    const empty = deps.faults.take('data', ['empty-result'], { reportId: request.report.id }) !== undefined;
    const rows: ResultRows = empty
      ? { totalCount: 0, batches: [], totals: emptyTally }
      : layout === 'user-totals'
        ? await userTotalRows(tenant, request, filter)
        : await callRows(tenant, request, filter, layout);
    const cut = deps.faults.take('data', ['reset', 'truncate']);
    await streamResult({
      req: ctx.req,
      res: ctx.res,
      head: resultHead(request, tenant.seed.tenant, rows.totalCount, deps.rowLimit),
      batches: formatBatches(rows.batches, deps.rowFormat, fieldNamesOf(layout)),
      tail: () => resultTail(rows.totals(), deps.rowLimit, mismatch),
      cut,
    });
  };

  /** One row per call the template keeps, written while streaming. */
  const callRows = async (
    { generator }: HostedTenant,
    request: StoredReportRequest,
    filter: CallFilter | undefined,
    layout: RowLayout,
  ): Promise<ResultRows> => {
    const endMs = callsUpTo(request);
    const totalCount = await generator.countInWindowAsync(request.startMs, endMs, filter);
    const tally = emptyTally();
    const details = layout === 'call-details';
    return {
      totalCount,
      batches: generator.rowBatches(request.startMs, endMs, deps.rowLimit, tally, filter, {
        details,
      }),
      totals: () => tally,
    };
  };

  /** One row per extension user over the whole window: the calls are summed before the first row. */
  const userTotalRows = async (
    { generator }: HostedTenant,
    request: StoredReportRequest,
    filter: CallFilter | undefined,
  ): Promise<ResultRows> => {
    const users = await generator.userTotalsAsync(request.startMs, callsUpTo(request), filter);
    const emitted = users.slice(0, deps.rowLimit);
    return {
      totalCount: users.length,
      batches: [emitted.map(renderUserTotals).join(',')],
      totals: () => sumOfUsers(emitted),
    };
  };

  for (const spelling of ['results', 'requests']) {
    const base = `/v1.0/workspaces/:workspaceId/reports/:reportId/${spelling}/:requestId`;
    router.add('GET', base, 'status', status);
    router.add('GET', `${base}/data`, 'data', data);
  }
}

/**
 * The end of the calls a run holds: its period's end, or the instant it was created when that
 * is earlier (a period reaching today or later): no call has started after it yet.
 */
function callsUpTo(request: StoredReportRequest): number {
  return Math.min(request.endMs, request.createdMs);
}
