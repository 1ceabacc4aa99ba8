import { describe, expect, it } from 'vitest';
import {
  API_ERROR_CODES,
  classifyReportStatus,
  createClient,
  PollBudgetExhaustedError,
  ReportFailedError,
  ValidationError,
} from '../../../lib/api';
import { envelope, json, recordingSleep, type Step, scriptedFetch } from './scripted-fetch';

const WS = '11111111-1111-4111-8111-111111111111';
const REPORT = '22222222-2222-4222-8222-222222222222';
const REQ = '33333333-3333-4333-8333-333333333333';
const FILTER = '44444444-4444-4444-8444-444444444444';

function client(steps: Step[]) {
  const fetch = scriptedFetch(steps);
  const sleep = recordingSleep();
  let now = 0;
  const api = createClient({
    baseUrl: 'http://service.test/api',
    accessToken: 'tkn',
    workspaceId: WS,
    fetch,
    sleep,
    pollTiming: {
      now: () => now,
      sleep: async (ms) => {
        sleep.delays.push(ms);
        now += ms;
      },
    },
  });
  return { api, fetch, sleep };
}

const status = (s: string, message = 'msg') =>
  json(
    200,
    envelope({
      status: s,
      statusMessage: message,
      reportId: REPORT,
      requestId: REQ,
      tenantId: 't',
      dateCreated: 'd',
      reportTemplateName: 'n',
    }),
  );

describe('ReportingClient', () => {
  it('pages through reports when the server pages and stops on a short page', async () => {
    // Prepare
    const page = (index: number, ids: string[]) =>
      json(
        200,
        envelope(
          ids.map((id) => ({ id, name: id })),
          { page_size: String(ids.length), page_index: index },
        ),
      );
    const { api, fetch } = client([page(0, ['a', 'b']), page(1, ['c', 'd']), page(2, ['e'])]);
    // Act
    const ids: string[] = [];
    for await (const r of api.reporting.listReports({ pageSize: 2 })) ids.push(r.id);
    // Assess
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(fetch.calls.map((c) => c.url.searchParams.get('pageIndex'))).toEqual(['0', '1', '2']);
    expect(fetch.calls[0]?.url.pathname).toBe(`/api/v1.0/workspaces/${WS}/reports`);
  });

  it('stops after one page when the server ignores paging', async () => {
    // Prepare
    const all = json(200, {
      data: [
        { id: 'a', name: 'A' },
        { id: 'b', name: 'B' },
      ],
    });
    const { api, fetch } = client([all, all]);
    // Act
    const ids: string[] = [];
    for await (const r of api.reporting.listReports({ pageSize: 2 })) ids.push(r.id);
    // Assess
    expect(ids).toEqual(['a', 'b']);
    expect(fetch.calls).toHaveLength(1);
  });

  it('stops at maxPages when the server always says there is more', async () => {
    // Prepare
    const { api, fetch } = client([
      (call) =>
        json(
          200,
          envelope([{ id: 'x', name: 'x' }], {
            page_size: 1,
            page_index: Number(call.url.searchParams.get('pageIndex')),
          }),
        ),
    ]);
    // Act
    let count = 0;
    for await (const _ of api.reporting.listWorkspaces({ pageSize: 1, maxPages: 5 })) count++;
    // Assess
    expect(count).toBe(5);
    expect(fetch.calls).toHaveLength(5);
  });

  it('sends preset, filterId and additionalConditions when requesting a run', async () => {
    // Prepare
    const { api, fetch } = client([json(200, envelope({ requestId: REQ, reportId: REPORT }))]);
    const additionalConditions = [{ fieldName: 'userNum', operator: '=', values: ['201'] }];
    // Act
    const run = await api.reporting.requestReport({
      reportId: REPORT,
      period: { preset: 'ThisQuarter' },
      filterId: FILTER,
      additionalConditions,
    });
    // Assess
    expect(run.requestId).toBe(REQ);
    expect(fetch.calls[0]?.method).toBe('POST');
    expect(fetch.calls[0]?.url.pathname).toBe(`/api/v1.0/workspaces/${WS}/reports/${REPORT}/requests`);
    expect(JSON.parse(fetch.calls[0]?.body ?? '')).toEqual({
      reportId: REPORT,
      dateFilter: { presetName: 'ThisQuarter' },
      filterId: FILTER,
      additionalConditions,
    });
  });

  it('keeps the offsets of a fixed range as given', async () => {
    // Prepare
    const { api, fetch } = client([json(200, envelope({ requestId: REQ }))]);
    // Act
    await api.reporting.requestReport({
      reportId: REPORT,
      period: { start: '2026-01-01T00:00:00+01:00', end: '2026-01-02T00:00:00+01:00' },
    });
    // Assess
    expect(JSON.parse(fetch.calls[0]?.body ?? '').dateFilter).toEqual({
      start: '2026-01-01T00:00:00+01:00',
      end: '2026-01-02T00:00:00+01:00',
    });
  });

  it.each([
    { name: 'report id not a GUID', input: { reportId: 'nope', period: { preset: 'Today' } } },
    {
      name: 'range without offset',
      input: { reportId: REPORT, period: { start: '2026-01-01T00:00:00', end: '2026-01-02T00:00:00Z' } },
    },
    {
      name: 'range reversed',
      input: { reportId: REPORT, period: { start: '2026-01-02T00:00:00Z', end: '2026-01-01T00:00:00Z' } },
    },
    { name: 'filterId not a GUID', input: { reportId: REPORT, period: { preset: 'Today' }, filterId: '1' } },
  ])('rejects before any request when the $name', async ({ input }) => {
    // Prepare
    const { api, fetch } = client([json(200, envelope({}))]);
    // Act
    const error = await api.reporting.requestReport(input).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ValidationError);
    expect(fetch.calls).toHaveLength(0);
  });

  it('polls with backoff and resolves when the status turns Complete', async () => {
    // Prepare
    const { api, fetch, sleep } = client([
      status('Queued'),
      status('SomethingNew'),
      status('Running'),
      status('Complete', 'done'),
    ]);
    // Act
    const final = await api.reporting.waitForCompletion(
      { reportId: REPORT, requestId: REQ },
      { pollIntervalMs: 100, backoffFactor: 2 },
    );
    // Assess
    expect(final.statusMessage).toBe('done');
    expect(fetch.calls).toHaveLength(4);
    expect(sleep.delays).toEqual([100, 200, 400]);
    expect(fetch.calls[0]?.url.pathname).toBe(`/api/v1.0/workspaces/${WS}/reports/${REPORT}/results/${REQ}`);
  });

  it.each(['Failed', 'ERROR', 'cancelled', 'Canceled'])(
    'rejects with ReportFailedError carrying the message when the status is %s',
    async (s) => {
      // Prepare
      const { api } = client([status('Running'), status(s, 'query timed out')]);
      // Act
      const error = await api.reporting
        .waitForCompletion({ reportId: REPORT, requestId: REQ }, { pollIntervalMs: 1 })
        .catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(ReportFailedError);
      expect(error).toMatchObject({
        code: API_ERROR_CODES.reportFailed,
        reportStatus: s,
        statusMessage: 'query timed out',
      });
    },
  );

  it.each([
    { name: 'maxPolls', options: { maxPolls: 3 }, polls: 3 },
    { name: 'deadlineMs', options: { deadlineMs: 250, pollIntervalMs: 100, backoffFactor: 1 }, polls: 3 },
  ])('rejects with PollBudgetExhaustedError when $name is spent', async ({ options, polls }) => {
    // Prepare
    const { api, fetch } = client([status('Running')]);
    // Act
    const error = await api.reporting
      .waitForCompletion({ reportId: REPORT, requestId: REQ }, options)
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(PollBudgetExhaustedError);
    expect(fetch.calls).toHaveLength(polls);
  });

  it.each([
    { status: 'Complete', state: 'complete' },
    { status: 'completed', state: 'complete' },
    { status: 'Failed', state: 'failed' },
    { status: 'Error', state: 'failed' },
    { status: 'Cancelled', state: 'failed' },
    { status: 'Queued', state: 'running' },
    { status: 'Whatever', state: 'running' },
    { status: '', state: 'running' },
  ])('classifies $status as $state', ({ status: s, state }) => {
    // Act + Assess
    expect(classifyReportStatus(s)).toBe(state);
  });

  it('streams the result with the head first when opened', async () => {
    // Prepare
    const body = JSON.stringify({
      requestId: REQ,
      tenantId: 't',
      request: { displayFields: [], rowLimit: 10 },
      totalCount: '2',
      rowLimitExceeded: false,
      data: [{ a: 1 }, { a: 2 }],
      status: 1,
    });
    const { api, fetch } = client([new Response(body, { status: 200 })]);
    // Act
    const result = await api.reporting.openResult({ reportId: REPORT, requestId: REQ });
    const rows: unknown[] = [];
    for await (const row of result.rows) rows.push(row);
    // Assess
    expect(result.head.totalCount).toBe(2);
    expect(rows).toEqual([{ a: 1 }, { a: 2 }]);
    expect((await result.done()).rowsRead).toBe(2);
    expect(fetch.calls[0]?.url.pathname).toBe(
      `/api/v1.0/workspaces/${WS}/reports/${REPORT}/results/${REQ}/data`,
    );
  });
});
