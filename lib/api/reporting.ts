import {
  type AdditionalCondition,
  API_VERSION_SEGMENT,
  type DateFilterInput,
  type ReportListEntry,
  type ReportRequest,
  type ReportRequestStatus,
  type ReportRunBody,
  type Workspace,
} from '../spec';
import { expectObject, parseEnvelope } from './envelope';
import { ApiError, ValidationError } from './errors';
import { RETRY_MODES } from './http/retry';
import type { CallOptions, HttpTransport } from './http/transport';
import { type PageOptions, paginate } from './paging';
import { type PollTiming, pollUntilComplete, SYSTEM_POLL_TIMING, type WaitOptions } from './report-status';
import { startResultDeadline } from './result/deadline';
import { type ParseResultOptions, parseReportResultStream } from './result/parser';
import type { ReportResultStream } from './result/stream';
import { requireDateTimeWithOffset, requireGuid, seg } from './validate';

/** Period of a run: a preset name, or a fixed range whose offsets are sent as given. */
export type ReportPeriod = { preset: string } | { start: string; end: string };

export interface RunReportInput {
  reportId: string;
  /** Default: the client's workspaceId. */
  workspaceId?: string;
  period: ReportPeriod;
  /** A predefined filter; without it the report's default filter applies. */
  filterId?: string;
  /** Conditions added to the chosen filter. */
  additionalConditions?: AdditionalCondition[];
}

/** Identifies one run. */
export interface ReportRunRef {
  reportId: string;
  requestId: string;
  workspaceId?: string;
}

export interface ReportingClientOptions {
  /** Workspace used when a call names none. */
  workspaceId?: string | undefined;
  pollTiming?: PollTiming | undefined;
}

export interface OpenResultOptions extends CallOptions {
  limits?: ParseResultOptions['limits'];
  /** Invalid UTF-8 and lone surrogates: `count` (default) or `fail`. See {@link ParseResultOptions}. */
  invalidText?: ParseResultOptions['invalidText'];
  /**
   * Time for the whole read, from the request to the last row: a body that keeps sending a
   * byte now and then (never idle for `timeoutMs`) still ends, with a TimeoutError, and is
   * cancelled. Default: none (the caller's `signal` and the idle timeout only).
   */
  totalTimeoutMs?: number;
}

const V = `/${API_VERSION_SEGMENT}`;

/** Reporting endpoints 1-4 plus the workspace list. See {@link createClient} for an example. */
export class ReportingClient {
  readonly #t: HttpTransport;
  readonly #workspaceId: string | undefined;
  readonly #timing: PollTiming;

  constructor(transport: HttpTransport, options: ReportingClientOptions = {}) {
    this.#t = transport;
    this.#workspaceId = options.workspaceId;
    this.#timing = options.pollTiming ?? SYSTEM_POLL_TIMING;
  }

  /** Workspaces of the tenant (`GET /v1.0/workspaces`). */
  listWorkspaces(options: PageOptions = {}): AsyncIterable<Workspace> {
    return paginate<Workspace>(this.#t, `${V}/workspaces`, options);
  }

  /** Reports configured in a workspace (endpoint 1), paging when the server pages. */
  listReports(options: PageOptions & { workspaceId?: string } = {}): AsyncIterable<ReportListEntry> {
    const { workspaceId, ...page } = options;
    // Validation errors surface on iteration, like request errors, not at the call.
    const lazy = async function* (self: ReportingClient, ws: (id: string | undefined) => string) {
      yield* paginate<ReportListEntry>(self.#t, `${ws(workspaceId)}/reports`, page);
    };
    return lazy(this, (id) => this.#ws(id));
  }

  /**
   * Starts a run (endpoint 2). Not blindly retried: the POST is repeated only when the
   * service cannot have received it (connection refused) or refused it explicitly (408,
   * or 429/503 with Retry-After). A reset or timeout after sending surfaces as an error:
   * the run may exist, and a second POST would start a second one.
   */
  async requestReport(input: RunReportInput, call: CallOptions = {}): Promise<ReportRequest> {
    const reportId = requireGuid('reportId', input.reportId);
    const body: ReportRunBody = { reportId, dateFilter: dateFilterOf(input.period) };
    if (input.filterId !== undefined) body.filterId = requireGuid('filterId', input.filterId);
    if (input.additionalConditions !== undefined) body.additionalConditions = input.additionalConditions;
    const path = `${this.#ws(input.workspaceId)}/reports/${seg(reportId)}/requests`;
    const { body: res } = await this.#t.requestJson({
      ...call,
      method: 'POST',
      path,
      json: body,
      retryMode: RETRY_MODES.unsentOnly,
    });
    return expectObject<ReportRequest>(parseEnvelope(res, { method: 'POST', path }).data, {
      method: 'POST',
      path,
    });
  }

  /** Status of a run (endpoint 3). */
  async getStatus(ref: ReportRunRef, call: CallOptions = {}): Promise<ReportRequestStatus> {
    const path = this.#runPath(ref);
    const { body } = await this.#t.requestJson({ ...call, method: 'GET', path });
    return expectObject<ReportRequestStatus>(parseEnvelope(body, { method: 'GET', path }).data, {
      method: 'GET',
      path,
    });
  }

  /**
   * Polls the status with backoff until `Complete`. Unknown statuses count as running;
   * failure-like ones reject with `ReportFailedError`; a spent budget with
   * `PollBudgetExhaustedError`.
   */
  waitForCompletion(ref: ReportRunRef, options: WaitOptions = {}): Promise<ReportRequestStatus> {
    return pollUntilComplete((signal) => this.getStatus(ref, { signal }), options, this.#timing);
  }

  /**
   * Opens the result (endpoint 4) as a stream: resolves when the head is read, then rows
   * arrive as the body does. The GET is retried until the body starts; a failure in the
   * middle of the body rejects the row iteration (start over with a new `openResult`).
   * `signal` and `totalTimeoutMs` bound the whole read, rows included.
   */
  async openResult(ref: ReportRunRef, options: OpenResultOptions = {}): Promise<ReportResultStream> {
    const { limits, invalidText, totalTimeoutMs, signal, ...call } = options;
    const path = `${this.#runPath(ref)}/data`;
    const deadline = startResultDeadline(signal, totalTimeoutMs, { method: 'GET', path });
    let response: Awaited<ReturnType<HttpTransport['requestStream']>>;
    try {
      response = await this.#t.requestStream({ ...call, signal: deadline.signal, method: 'GET', path });
    } catch (error) {
      deadline.dispose();
      // The transport names the abort; the deadline knows whether it was the total time.
      if (deadline.signal?.aborted && deadline.signal.reason instanceof ApiError)
        throw deadline.signal.reason;
      throw error;
    }
    try {
      const stream = await parseReportResultStream(response.body, {
        details: response.details,
        onCancel: (reason) => response.cancel(reason),
        ...(limits ? { limits } : {}),
        ...(invalidText ? { invalidText } : {}),
        ...(deadline.signal ? { signal: deadline.signal } : {}),
      });
      stream.done().then(deadline.dispose, deadline.dispose);
      return stream;
    } catch (error) {
      deadline.dispose();
      response.cancel(error);
      throw error;
    }
  }

  #ws(workspaceId: string | undefined): string {
    const id = workspaceId ?? this.#workspaceId;
    if (id === undefined)
      throw new ValidationError('workspaceId', 'is required (per call or in the client options)');
    return `${V}/workspaces/${seg(requireGuid('workspaceId', id))}`;
  }

  #runPath(ref: ReportRunRef): string {
    const reportId = requireGuid('reportId', ref.reportId);
    const requestId = requireGuid('requestId', ref.requestId);
    return `${this.#ws(ref.workspaceId)}/reports/${seg(reportId)}/results/${seg(requestId)}`;
  }
}

function dateFilterOf(period: ReportPeriod): DateFilterInput {
  if ('preset' in period) {
    if (typeof period.preset !== 'string' || !/^[A-Za-z]+$/.test(period.preset)) {
      throw new ValidationError('period.preset', 'must be a preset name such as ThisQuarter');
    }
    return { presetName: period.preset };
  }
  const start = requireDateTimeWithOffset('period.start', period.start);
  const end = requireDateTimeWithOffset('period.end', period.end);
  if (Date.parse(start) >= Date.parse(end)) throw new ValidationError('period', 'start must be before end');
  return { start, end };
}
