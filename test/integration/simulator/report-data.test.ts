import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope, ReportRequest, ReportResult, ResultRow } from '../../../lib/spec/types';
import { GUID, requestReport, startTestSim, type TestSim } from './sim-harness';

describe('report data endpoint', () => {
  let t: TestSim;

  beforeAll(async () => {
    t = await startTestSim();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(['results', 'requests'])(
    'returns the report result with rows inside the window when GET data via /%s',
    async (spelling) => {
      // Prepare
      const requestId = await requestReport(t, '2026-03-23T08:00:00+00:00', '2026-03-23T12:00:00+00:00');
      // Act
      const response = await t.api(`${t.reportPath}/${spelling}/${requestId}/data`);
      const result = (await response.json()) as ReportResult;
      // Assess
      expect(response.status).toBe(200);
      expect(Object.keys(result)).toEqual([
        'requestId',
        'tenantId',
        'request',
        'effort',
        'queryDuration',
        'totalDuration',
        'queryCount',
        'rowLimitExceeded',
        'totalCount',
        'data',
        'summary',
        'status',
        'statusMessage',
        'rowLimit',
      ]);
      const rows = result.data as ResultRow[];
      expect(rows.length).toBeGreaterThan(10);
      expect(result.totalCount).toBe(rows.length);
      expect(result.rowLimitExceeded).toBe(false);
      expect(result.status).toBe(1);
      expect(result.rowLimit).toBe(1_000_000);
      for (const row of rows) {
        expect((row.start ?? '') >= '2026-03-23T08:00:00' && (row.start ?? '') < '2026-03-23T12:00:00').toBe(
          true,
        );
        expect(row.connId).toMatch(GUID);
      }
      expect(rows.map((r) => r.start)).toEqual(rows.map((r) => r.start).sort());
      const sum = (key: 'ans' | 'ref' | 'lost' | 'ring' | 'duration') =>
        rows.reduce((s, r) => s + (r[key] ?? 0), 0);
      expect(result.summary).toEqual([
        { ans: sum('ans'), ref: sum('ref'), lost: sum('lost'), ring: sum('ring'), duration: sum('duration') },
      ]);
    },
  );

  it('carries the whole request object with the window as filter conditions when data is fetched', async () => {
    // Prepare
    const requestId = await requestReport(t, '2026-03-23T08:00:00+00:00', '2026-03-23T09:00:00+00:00');
    // Act
    const result = (await (await t.api(`${t.reportPath}/results/${requestId}/data`)).json()) as ReportResult;
    // Assess
    const request = result.request;
    expect(Object.keys(request)).toEqual([
      'requestId',
      'dateCreated',
      'tenantId',
      'reportId',
      'reportTemplateName',
      'filterConditions',
      'sortFields',
      'displayFields',
      'childDisplayFields',
      'ignoreDisplayFields',
      'metadata',
      'source',
      'pageSize',
      'batchSize',
      'rowLimit',
      'priorityLevel',
      'callRatePeriod',
      'ignoreAbandonedCalls',
      'ignoreShortAnsweredCalls',
      'accountCodeLabels',
      'ringDurationThresholds',
      'incomingEstimatedRevenue',
      'incomingCallsPerSale',
      'outgoingEstimatedRevenue',
      'outgoingCallsPerSale',
      'durationGroupPeriodInSeconds',
      'timeZoneId',
      'countryCode',
      'locale',
      'totalTrunks',
      'maxRows',
    ]);
    expect(request.filterConditions).toEqual([
      { fieldName: 'start', operator: '>=', values: ['2026-03-23T08:00:00+00:00'] },
      { fieldName: 'start', operator: '<', values: ['2026-03-23T09:00:00+00:00'] },
    ]);
    expect(request.timeZoneId).toBe('Europe/London');
    expect(request.pageSize).toBe(-1);
    expect(request.maxRows).toBe(0);
    expect(request.displayFields.map((f) => f.fieldName)).toContain('hgName');
    expect(request.metadata.timeZoneAbbreviation).toBe('GMT');
  });

  it.each([
    ['the given filterId', '3c0d6a4e-1b2f-4c3d-9e8f-7a6b5c4d3e2f', '3c0d6a4e-1b2f-4c3d-9e8f-7a6b5c4d3e2f'],
    ['the report default filter', undefined, GUID],
  ])('runs with %s when filterId is %s', async (_case, filterId, expected) => {
    // Prepare
    const created = (await (
      await t.api(`${t.reportPath}/requests`, {
        method: 'POST',
        body: { reportId: t.sim.reportIds[0], filterId, dateFilter: { presetName: 'Yesterday' } },
      })
    ).json()) as Envelope<ReportRequest>;
    // Act
    const result = (await (
      await t.api(`${t.reportPath}/results/${created.data.requestId}/data`)
    ).json()) as ReportResult;
    // Assess
    expect(result.request.metadata.filterId).toMatch(
      typeof expected === 'string' ? new RegExp(`^${expected}$`) : expected,
    );
  });

  it('returns the rows of the preset period when a preset is requested', async () => {
    // Prepare: now is Monday 30 March 2026 10:30 BST, so Yesterday is Sunday 29 March (23 hours long).
    const created = (await (
      await t.api(`${t.reportPath}/requests`, {
        method: 'POST',
        body: { reportId: t.sim.reportIds[0], dateFilter: { presetName: 'Yesterday' } },
      })
    ).json()) as Envelope<ReportRequest>;
    // Act
    const result = (await (
      await t.api(`${t.reportPath}/results/${created.data.requestId}/data`)
    ).json()) as ReportResult;
    // Assess
    const rows = result.data as ResultRow[];
    expect(created.data.startTime).toBe('2026-03-29T00:00:00+00:00');
    expect(created.data.endTime).toBe('2026-03-30T00:00:00+01:00');
    // 16 calls that Sunday (8 % of 200), 14 of them with an extension user (call list by user).
    expect(rows.length).toBe(14);
    expect(rows.every((r) => r.start?.startsWith('2026-03-29T'))).toBe(true);
    expect(result.request.filterConditions[1]?.values).toEqual(['2026-03-30T00:00:00+01:00']);
  });

  it('serves a gzip body that decodes to the same document when Accept-Encoding has gzip', async () => {
    // Prepare
    const requestId = await requestReport(t, '2026-03-23T08:00:00Z', '2026-03-23T10:00:00Z');
    const path = `${t.reportPath}/results/${requestId}/data`;
    const plain = await (await t.api(path, { headers: { 'accept-encoding': 'identity' } })).text();
    // Act: raw bytes through node:http (fetch would decode them transparently).
    const raw = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(`${t.sim.baseUrl}/v1.0${path}`, {
        headers: { authorization: `Bearer ${t.token}`, 'accept-encoding': 'gzip' },
        timeout: 10_000,
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    // Assess
    expect(raw.encoding).toBe('gzip');
    expect(gunzipSync(raw.body).toString('utf8')).toBe(plain);
  });
});
