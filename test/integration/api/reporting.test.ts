import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortedError,
  API_ERROR_CODES,
  createClient,
  PollBudgetExhaustedError,
  ReportFailedError,
  type ReportRunRef,
  type ServiceClient,
  TimeoutError,
} from '../../../lib/api';
import type { ResultRow } from '../../../lib/spec/types';
import { connect, type countingFetch, type RunningSimulator, startTestSimulator } from './sim-fixture';

const RANGE = { start: '2026-11-02T00:00:00+00:00', end: '2026-11-05T00:00:00+00:00' };

describe('ReportingClient against the local service', () => {
  let sim: RunningSimulator;
  let api: ServiceClient;
  let reportId: string;
  let counter: ReturnType<typeof countingFetch>;

  beforeAll(async () => {
    sim = await startTestSimulator();
    ({ api, counter } = await connect(sim));
    reportId = sim.reportIds[0] as string;
  });
  afterEach(() => sim.faults.clear());
  afterAll(() => sim.close());

  async function completedRun(): Promise<ReportRunRef> {
    const run = await api.reporting.requestReport({ reportId, period: RANGE });
    const ref = { reportId, requestId: run.requestId };
    await api.reporting.waitForCompletion(ref, { pollIntervalMs: 20, maxPolls: 50 });
    return ref;
  }

  async function readRows(ref: ReportRunRef): Promise<{ rows: ResultRow[]; totalCount: number }> {
    const result = await api.reporting.openResult(ref);
    const rows: ResultRow[] = [];
    for await (const row of result.rows) rows.push(row);
    const meta = await result.done();
    return { rows, totalCount: meta.totalCount };
  }

  /** The rows read in batches (a separate read), to compare a faulted read with. */
  async function referenceRows(ref: ReportRunRef): Promise<unknown[]> {
    const stream = await api.reporting.openResult(ref);
    const all: unknown[] = [];
    for await (const batch of stream.batches) all.push(...batch);
    return all;
  }

  it('lists the workspaces and the reports of the default workspace', async () => {
    // Act
    const workspaces: string[] = [];
    for await (const w of api.reporting.listWorkspaces()) workspaces.push(w.id);
    const reports: string[] = [];
    for await (const r of api.reporting.listReports({ pageSize: 2 })) reports.push(r.id);
    // Assess
    expect(workspaces).toContain(sim.workspaceId);
    expect(reports).toEqual(sim.reportIds);
  });

  it('runs a preset report to completion and streams every row when asked for ThisQuarter', async () => {
    // Prepare
    const run = await api.reporting.requestReport({ reportId, period: { preset: 'ThisQuarter' } });
    const ref = { reportId, requestId: run.requestId };
    // Act
    const status = await api.reporting.waitForCompletion(ref, { pollIntervalMs: 20, maxPolls: 50 });
    const first = await api.reporting.getStatus(ref);
    const { rows, totalCount } = await readRows(ref);
    // Assess
    expect(run.dateFilter.presetName).toBe('ThisQuarter');
    expect(status.status).toBe('Complete');
    expect(first.requestId).toBe(run.requestId);
    expect(rows.length).toBe(totalCount);
    expect(totalCount).toBeGreaterThan(0);
  });

  it('keeps the offsets of a fixed range and returns rows of that range', async () => {
    // Prepare
    const range = { start: '2026-11-02T00:00:00+01:00', end: '2026-11-03T00:00:00+01:00' };
    // Act
    const run = await api.reporting.requestReport({ reportId, period: range });
    const ref = { reportId, requestId: run.requestId };
    await api.reporting.waitForCompletion(ref, { pollIntervalMs: 20, maxPolls: 50 });
    const result = await api.reporting.openResult(ref);
    const rows: ResultRow[] = [];
    for await (const row of result.rows) rows.push(row);
    // Assess
    expect(run.start ?? run.dateFilter.start).toBe(range.start);
    const instants = result.head.request.filterConditions.flatMap((c) => c.values).map((v) => Date.parse(v));
    expect(instants).toEqual([Date.parse(range.start), Date.parse(range.end)]);
    expect(
      rows.every((r) => (r.start ?? '') >= '2026-11-01T23:00:00' && (r.start ?? '') < '2026-11-02T23:00:00'),
    ).toBe(true);
  });

  it('rejects with ReportFailedError carrying the status message when the run fails', async () => {
    // Prepare
    sim.faults.inject({ route: 'request', kind: 'report-fail', statusMessage: 'Query exceeded its budget' });
    const run = await api.reporting.requestReport({ reportId, period: RANGE });
    // Act
    const error = await api.reporting
      .waitForCompletion({ reportId, requestId: run.requestId }, { pollIntervalMs: 20, maxPolls: 50 })
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ReportFailedError);
    expect(error).toMatchObject({ statusMessage: 'Query exceeded its budget' });
  });

  it('rejects with PollBudgetExhaustedError when the run never completes', async () => {
    // Prepare
    sim.faults.inject({ route: 'request', kind: 'report-stuck' });
    const run = await api.reporting.requestReport({ reportId, period: RANGE });
    // Act
    const error = await api.reporting
      .waitForCompletion({ reportId, requestId: run.requestId }, { pollIntervalMs: 10, maxPolls: 4 })
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(PollBudgetExhaustedError);
    expect(error).toMatchObject({ polls: 4 });
  });

  it('reads exactly the same rows after 503 bursts on the data endpoint', async () => {
    // Prepare
    const ref = await completedRun();
    const expected = await referenceRows(ref);
    sim.faults.inject({ route: 'data', kind: 'status', status: 503, times: 3 });
    const before = counter.calls();
    // Act
    const { rows } = await readRows(ref);
    // Assess
    expect(rows).toEqual(expected);
    expect(counter.calls() - before).toBe(4);
  });

  it('waits for Retry-After and then succeeds when the status endpoint answers 429', async () => {
    // Prepare
    const run = await api.reporting.requestReport({ reportId, period: RANGE });
    const delays: number[] = [];
    const sleep = (ms: number) => {
      delays.push(ms);
      return new Promise<void>((resolve) => setTimeout(resolve, ms));
    };
    const own = await connect(sim, { client: { sleep } });
    sim.faults.inject({ route: 'status', kind: 'status', status: 429, retryAfterSeconds: 1, times: 1 });
    // Act
    const status = await own.api.reporting.getStatus({ reportId, requestId: run.requestId });
    // Assess
    expect(status.requestId).toBe(run.requestId);
    expect(delays).toEqual([1000]);
  });

  it.each([
    { kind: 'reset' as const, code: API_ERROR_CODES.connection },
    { kind: 'truncate' as const, code: API_ERROR_CODES.truncatedBody },
  ])(
    'fails with $code and never a short result when the data body is cut by $kind',
    async ({ kind, code }) => {
      // Prepare
      const ref = await completedRun();
      const expected = await referenceRows(ref);
      sim.faults.inject({ route: 'data', kind, afterBytes: 20_000 });
      // Act
      const error = await readRows(ref).catch((e: unknown) => e);
      const again = await readRows(ref);
      // Assess
      expect(error).toHaveProperty('code', code);
      expect(again.rows).toEqual(expected);
    },
  );

  it('does not repeat the report POST when the service answers 503 without Retry-After', async () => {
    // Prepare
    sim.faults.inject({ route: 'request', kind: 'status', status: 503, times: 1 });
    const before = counter.calls();
    // Act
    const error = await api.reporting.requestReport({ reportId, period: RANGE }).catch((e: unknown) => e);
    const next = await api.reporting.requestReport({ reportId, period: RANGE });
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.server);
    expect(counter.calls() - before).toBe(2); // the failed POST once, then the next run
    expect(next.requestId).toBeTruthy();
  });

  it('repeats the report POST when the service answers 503 with Retry-After', async () => {
    // Prepare
    sim.faults.inject({ route: 'request', kind: 'status', status: 503, retryAfterSeconds: 0, times: 2 });
    const before = counter.calls();
    // Act
    const run = await api.reporting.requestReport({ reportId, period: RANGE });
    // Assess
    expect(run.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(counter.calls() - before).toBe(3);
  });

  it('fails with TimeoutError when the status answer is slower than the timeout', async () => {
    // Prepare
    const ref = await completedRun();
    sim.faults.inject({ route: 'status', kind: 'latency', ms: 3000, times: 1 });
    // Act
    const error = await api.reporting
      .getStatus(ref, { timeoutMs: 200, maxRetries: 0 })
      .catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.timeout);
  });
});

describe('ReportingClient.openResult against a body that trickles forever', () => {
  const WS = '11111111-1111-4111-8111-111111111111';
  const REF = {
    reportId: '22222222-2222-4222-8222-222222222222',
    requestId: '33333333-3333-4333-8333-333333333333',
  };
  let server: Server;
  let baseUrl: string;
  /** Per response: true once the client closed it before the server's own stop. */
  const closedByClient: boolean[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const index = closedByClient.push(false) - 1;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.write('{"request":{"displayFields":[]},"totalCount":1,"data":[');
      // One byte every 50 ms, never idle for the client's timeout; stops by itself after 10 s.
      const timer = setInterval(() => res.write(' '), 50);
      const stop = setTimeout(() => {
        clearInterval(timer);
        res.end();
      }, 10_000);
      req.socket.once('close', () => {
        if (!res.writableEnded) closedByClient[index] = true;
        clearInterval(timer);
        clearTimeout(stop);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([
    { name: 'totalTimeoutMs is spent', options: () => ({ totalTimeoutMs: 300 }), type: TimeoutError },
    { name: 'the caller aborts', options: () => ({ signal: AbortSignal.timeout(300) }), type: AbortedError },
  ])('rejects the rows and closes the connection when $name', async ({ options, type }) => {
    // Prepare
    const api = createClient({ baseUrl, accessToken: 'tkn', workspaceId: WS, timeoutMs: 5_000 });
    const before = closedByClient.length;
    // Act
    const stream = await api.reporting.openResult(REF, options());
    const error = await (async () => {
      for await (const _ of stream.batches) {
        // consume
      }
    })().catch((e: unknown) => e);
    for (let i = 0; i < 100 && !closedByClient[before]; i++) await new Promise((r) => setTimeout(r, 20));
    // Assess
    expect(error).toBeInstanceOf(type);
    await expect(stream.done()).rejects.toBeInstanceOf(type);
    expect(closedByClient[before]).toBe(true);
  });
});
