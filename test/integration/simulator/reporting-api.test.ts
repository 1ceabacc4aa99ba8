import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope, ErrorBody, ReportRequest, ReportRequestStatus } from '../../../lib/spec/types';
import { GUID, requestReport, startTestSim, type TestSim, TIMESTAMP_7 } from './sim-harness';

const UNKNOWN_GUID = '00000000-0000-4000-8000-000000000000';

describe('reporting API', () => {
  let t: TestSim;

  beforeAll(async () => {
    t = await startTestSim();
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists workspaces with id, name and default when GET /workspaces', async () => {
    // Act
    const response = await t.api('/workspaces');
    const body = (await response.json()) as Envelope<{ id: string; name: string; default: boolean }[]>;
    // Assess
    expect(response.status).toBe(200);
    expect(body.status).toBe('success');
    expect(body.timestamp).toMatch(TIMESTAMP_7);
    expect(body.page_size).toBe(body.data.length);
    expect(body.data.find((w) => w.default)?.id).toBe(t.sim.workspaceId);
  });

  it('lists the reports with page_size and page_index when GET endpoint 1', async () => {
    // Act
    const response = await t.api(`/workspaces/${t.sim.workspaceId}/reports`);
    const body = (await response.json()) as Envelope<{ id: string; name: string }[]>;
    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(body)).toEqual(['data', 'status', 'timestamp', 'page_size', 'page_index']);
    expect(body.page_index).toBe(0);
    expect(body.data.map((r) => r.id)).toEqual(t.sim.reportIds);
    expect(body.data[0]?.name).toBe('Call list by user');
  });

  it('pages the report list when pageIndex and pageSize are given', async () => {
    // Act
    const body = (await (
      await t.api(`/workspaces/${t.sim.workspaceId}/reports?pageIndex=1&pageSize=2`)
    ).json()) as Envelope<{ id: string }[]>;
    // Assess
    expect(body.page_index).toBe(1);
    expect(body.data.map((r) => r.id)).toEqual(t.sim.reportIds.slice(2));
  });

  it('echoes a fixed range as data.start and data.end when POST endpoint 2', async () => {
    // Prepare
    const start = '2026-03-23T08:00:00+00:00';
    const end = '2026-03-23T12:00:00+00:00';
    // Act
    const response = await t.api(`${t.reportPath}/requests`, {
      method: 'POST',
      body: { reportId: t.sim.reportIds[0], dateFilter: { start, end } },
    });
    const body = (await response.json()) as Envelope<ReportRequest>;
    // Assess
    expect(response.status).toBe(200);
    expect(Object.keys(body)).toEqual(['data', 'status', 'timestamp']);
    expect(body.data.requestId).toMatch(GUID);
    expect(body.data.reportId).toBe(t.sim.reportIds[0]);
    expect(body.data.locale).toBe('en-GB');
    expect(body.data.referenceDate).toBe('2026-03-30T10:30:00+01:00');
    expect(body.data.start).toBe(start);
    expect(body.data.end).toBe(end);
    expect(body.data.startTime).toBeUndefined();
  });

  it('returns presetFilterObject, startTime and endTime in the tenant zone when a preset is requested', async () => {
    // Act
    const response = await t.api(`${t.reportPath}/requests`, {
      method: 'POST',
      body: { reportId: t.sim.reportIds[0], dateFilter: { presetName: 'ThisQuarter' } },
    });
    const body = (await response.json()) as Envelope<ReportRequest>;
    // Assess
    expect(response.status).toBe(200);
    expect(body.data.dateFilter).toEqual({
      presetName: 'ThisQuarter',
      presetFilterObject: { units: 5, offset: 0, length: 1, roundingMode: 1, daysOfWeek: 127 },
      daysOfWeek: 127,
    });
    expect(body.data.startTime).toBe('2026-01-01T00:00:00+00:00');
    expect(body.data.endTime).toBe('2026-03-30T10:15:00+01:00');
  });

  it.each([
    ['not JSON', '{"reportId":', '{"reportId":'],
    ['a non-GUID reportId', { reportId: 'abc', dateFilter: { presetName: 'Today' } }, 'abc'],
    [
      'a reportId other than the path',
      { reportId: UNKNOWN_GUID, dateFilter: { presetName: 'Today' } },
      UNKNOWN_GUID,
    ],
    ['a non-GUID filterId', { filterId: 'f-1', dateFilter: { presetName: 'Today' } }, 'f-1'],
    ['an unknown preset', { dateFilter: { presetName: 'NextDecade' } }, 'NextDecade'],
    [
      'a start without offset',
      { dateFilter: { start: '2026-03-01T00:00:00', end: '2026-03-02T00:00:00Z' } },
      '2026-03-01T00:00:00',
    ],
    [
      'an impossible date',
      { dateFilter: { start: '2026-02-30T00:00:00Z', end: '2026-03-02T00:00:00Z' } },
      '2026-02-30T00:00:00Z',
    ],
    [
      'an end before the start',
      { dateFilter: { start: '2026-03-02T00:00:00Z', end: '2026-03-01T00:00:00Z' } },
      '2026-03-01T00:00:00Z',
    ],
    ['a missing dateFilter', {}, 'dateFilter'],
    [
      'malformed additionalConditions',
      { additionalConditions: 'x', dateFilter: { presetName: 'Today' } },
      'x',
    ],
  ])('answers 400 naming the value when the body has %s', async (_case, body, named) => {
    // Prepare
    const payload = typeof body === 'string' ? body : { reportId: t.sim.reportIds[0], ...body };
    // Act
    const response = await t.api(`${t.reportPath}/requests`, { method: 'POST', body: payload });
    const error = (await response.json()) as ErrorBody;
    // Assess
    expect(response.status).toBe(400);
    expect(error).toMatchObject({
      error: 400,
      status: 'error',
      message: `The value '${named}' is not valid.`,
    });
    expect(error.timestamp).toMatch(TIMESTAMP_7);
  });

  it.each([
    ['years 0001 to 9999', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z'],
    ['366 days and one second', '2026-01-01T00:00:00Z', '2027-01-02T00:00:01Z'],
  ])(
    'answers 400 naming the period and the 366-day maximum when the range spans %s',
    async (_case, start, end) => {
      // Act
      const response = await t.api(`${t.reportPath}/requests`, {
        method: 'POST',
        body: { reportId: t.sim.reportIds[0], dateFilter: { start, end } },
      });
      const error = (await response.json()) as ErrorBody;
      // Assess
      expect(response.status).toBe(400);
      expect(error).toMatchObject({
        error: 400,
        status: 'error',
        message: `The period from '${start}' to '${end}' is longer than the maximum of 366 days.`,
      });
    },
  );

  it('accepts a fixed range of exactly 366 days', async () => {
    // Act
    const response = await t.api(`${t.reportPath}/requests`, {
      method: 'POST',
      body: {
        reportId: t.sim.reportIds[0],
        dateFilter: { start: '2024-01-01T00:00:00+00:00', end: '2025-01-01T00:00:00+00:00' },
      },
    });
    // Assess
    expect(response.status).toBe(200);
  });

  it.each(['results', 'requests'])(
    'reports status Complete with its members when GET endpoint 3 via /%s',
    async (spelling) => {
      // Prepare
      const requestId = await requestReport(t, '2026-03-23T08:00:00Z', '2026-03-23T09:00:00Z');
      // Act
      const response = await t.api(`${t.reportPath}/${spelling}/${requestId}`);
      const body = (await response.json()) as Envelope<ReportRequestStatus>;
      // Assess
      expect(response.status).toBe(200);
      expect(body.data).toMatchObject({
        requestId,
        reportId: t.sim.reportIds[0],
        tenantId: t.sim.tenantId,
        status: 'Complete',
        statusMessage: 'Report processing is complete.',
        reportTemplateName: 'CallListByUser',
      });
      expect(body.data.dateCreated).toMatch(TIMESTAMP_7);
    },
  );

  it.each([
    ['workspace', (_t: TestSim, id: string) => `/workspaces/${id}/reports`],
    ['report', (t: TestSim, id: string) => `/workspaces/${t.sim.workspaceId}/reports/${id}/requests`],
    ['request (results)', (t: TestSim, id: string) => `${t.reportPath}/results/${id}`],
    ['request (requests)', (t: TestSim, id: string) => `${t.reportPath}/requests/${id}`],
    ['request data (results)', (t: TestSim, id: string) => `${t.reportPath}/results/${id}/data`],
    ['request data (requests)', (t: TestSim, id: string) => `${t.reportPath}/requests/${id}/data`],
  ])('answers 404 Not Found when the %s id is unknown', async (_what, path) => {
    // Act
    const isPost = path(t, 'x').endsWith('/requests') && !path(t, 'x').includes('/requests/');
    const response = await t.api(path(t, UNKNOWN_GUID), isPost ? { method: 'POST', body: {} } : {});
    // Assess
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 404, message: 'Not Found', status: 'error' });
  });

  it.each([
    ['workspace', (_t: TestSim) => '/workspaces/not-a-guid/reports'],
    ['request', (t: TestSim) => `${t.reportPath}/results/not-a-guid`],
  ])('answers 400 naming the id when the %s id is malformed', async (_what, path) => {
    // Act
    const response = await t.api(path(t));
    // Assess
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).message).toBe("The value 'not-a-guid' is not valid.");
  });

  it('answers 405 when the method is not served on a known path', async () => {
    // Act
    const response = await t.api(`/workspaces/${t.sim.workspaceId}/reports`, { method: 'DELETE' });
    // Assess
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });
});
