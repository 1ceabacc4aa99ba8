import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope, ReportRequest, ReportResult } from '../../../lib/spec/types';
import { GUID, startTestSim, type TestSim } from './sim-harness';

/** A member's shape as the spec's tables name it. */
type Shape = 'guid' | 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'offset-date-time';

const OFFSET_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function shapeOf(value: unknown, shape: Shape): boolean {
  switch (shape) {
    case 'guid':
      return typeof value === 'string' && GUID.test(value);
    case 'offset-date-time':
      return typeof value === 'string' && OFFSET_DATE_TIME.test(value);
    case 'integer':
      return Number.isInteger(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    default:
      return typeof value === shape;
  }
}

// The spec's "Report result" table and the shapes of its `request` members.
const RESULT_SHAPES: [string, Shape][] = [
  ['requestId', 'guid'],
  ['tenantId', 'guid'],
  ['request', 'object'],
  ['effort', 'number'],
  ['queryDuration', 'integer'],
  ['totalDuration', 'integer'],
  ['queryCount', 'integer'],
  ['rowLimitExceeded', 'boolean'],
  ['totalCount', 'integer'],
  ['data', 'array'],
  ['summary', 'array'],
  ['status', 'integer'],
  ['statusMessage', 'string'],
  ['rowLimit', 'integer'],
];
const REQUEST_SHAPES: [string, Shape][] = [
  ['requestId', 'guid'],
  ['dateCreated', 'string'],
  ['tenantId', 'guid'],
  ['reportId', 'guid'],
  ['reportTemplateName', 'string'],
  ['filterConditions', 'array'],
  ['sortFields', 'array'],
  ['displayFields', 'array'],
  ['childDisplayFields', 'array'],
  ['ignoreDisplayFields', 'boolean'],
  ['metadata', 'object'],
  ['source', 'string'],
  ['pageSize', 'integer'],
  ['batchSize', 'integer'],
  ['rowLimit', 'integer'],
  ['priorityLevel', 'integer'],
  ['callRatePeriod', 'integer'],
  ['ignoreAbandonedCalls', 'boolean'],
  ['ignoreShortAnsweredCalls', 'boolean'],
  ['accountCodeLabels', 'object'],
  ['ringDurationThresholds', 'array'],
  ['incomingEstimatedRevenue', 'number'],
  ['incomingCallsPerSale', 'integer'],
  ['outgoingEstimatedRevenue', 'number'],
  ['outgoingCallsPerSale', 'integer'],
  ['durationGroupPeriodInSeconds', 'integer'],
  ['timeZoneId', 'string'],
  ['countryCode', 'string'],
  ['locale', 'string'],
  ['totalTrunks', 'integer'],
  ['maxRows', 'integer'],
];
const METADATA_SHAPES: [string, Shape][] = [
  ['dateFilter', 'object'],
  ['referenceDate', 'offset-date-time'],
  ['timeZoneReferenceDate', 'offset-date-time'],
  ['additionalFilters', 'array'],
  ['timezoneDateFrom', 'string'],
  ['timezoneDateTo', 'string'],
  ['timeZoneDateCreated', 'string'],
  ['timeZoneAbbreviation', 'string'],
];
const PRESET_REQUEST_SHAPES: [string, Shape][] = [
  ['requestId', 'guid'],
  ['locale', 'string'],
  ['reportId', 'guid'],
  ['referenceDate', 'offset-date-time'],
  ['dateFilter', 'object'],
  ['startTime', 'offset-date-time'],
  ['endTime', 'offset-date-time'],
];

describe('report documents against the spec tables', () => {
  let t: TestSim;
  let created: ReportRequest;
  let result: ReportResult;

  beforeAll(async () => {
    t = await startTestSim();
    const response = await t.api(`${t.reportPath}/requests`, {
      method: 'POST',
      body: { reportId: t.sim.reportIds[0], dateFilter: { presetName: 'LastWeek' } },
    });
    created = ((await response.json()) as Envelope<ReportRequest>).data;
    result = (await (
      await t.api(`${t.reportPath}/results/${created.requestId}/data`)
    ).json()) as ReportResult;
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(PRESET_REQUEST_SHAPES)('carries %s as %s in the preset request response', (name, shape) => {
    // Assess
    expect(shapeOf((created as unknown as Record<string, unknown>)[name], shape)).toBe(true);
  });

  it('carries the presetFilterObject members as integers and daysOfWeek 127', () => {
    // Assess
    const pfo = created.dateFilter.presetFilterObject as unknown as Record<string, unknown>;
    for (const name of ['units', 'offset', 'length', 'roundingMode', 'daysOfWeek']) {
      expect(Number.isInteger(pfo[name])).toBe(true);
    }
    expect(created.dateFilter.daysOfWeek).toBe(127);
  });

  it.each(RESULT_SHAPES)('carries %s as %s in the result', (name, shape) => {
    // Assess
    expect(shapeOf((result as unknown as Record<string, unknown>)[name], shape)).toBe(true);
  });

  it.each(REQUEST_SHAPES)('carries request.%s as %s', (name, shape) => {
    // Assess
    expect(shapeOf((result.request as unknown as Record<string, unknown>)[name], shape)).toBe(true);
  });

  it.each(METADATA_SHAPES)('carries request.metadata.%s as %s', (name, shape) => {
    // Assess
    expect(shapeOf((result.request.metadata as unknown as Record<string, unknown>)[name], shape)).toBe(true);
  });

  it('carries reportName, filterId and workspaceFilterId as the spec allows (string or GUID, or null)', () => {
    // Assess
    const { reportName, filterId, workspaceFilterId } = result.request.metadata;
    expect(reportName === null || typeof reportName === 'string').toBe(true);
    expect(filterId === null || GUID.test(filterId)).toBe(true);
    expect(workspaceFilterId === null || GUID.test(workspaceFilterId)).toBe(true);
  });

  it("shapes the request's arrays as the spec lists them", () => {
    // Assess
    const r = result.request;
    expect(r.filterConditions.map((c) => c.operator)).toEqual(['>=', '<']);
    for (const c of r.filterConditions) {
      expect(typeof c.fieldName).toBe('string');
      expect(c.values.every((v) => OFFSET_DATE_TIME.test(v))).toBe(true);
    }
    expect(r.sortFields.every((f) => typeof f.fieldName === 'string' && Number.isInteger(f.direction))).toBe(
      true,
    );
    expect(
      r.displayFields.every((f) => typeof f.fieldName === 'string' && typeof f.mandatory === 'boolean'),
    ).toBe(true);
    expect(r.ringDurationThresholds.every((n) => Number.isInteger(n))).toBe(true);
    expect([r.pageSize, r.batchSize, r.rowLimit, r.maxRows]).toEqual([-1, -1, 1_000_000, 0]);
  });

  it('shapes every summary entry with integer ans, ref, lost and numeric ring, duration', () => {
    // Assess
    expect(result.summary.length).toBeGreaterThan(0);
    for (const s of result.summary) {
      expect([s.ans, s.ref, s.lost].every((n) => Number.isInteger(n))).toBe(true);
      expect([s.ring, s.duration].every((n) => typeof n === 'number')).toBe(true);
    }
  });
});
