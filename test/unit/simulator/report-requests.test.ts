import { describe, expect, it } from 'vitest';
import {
  parseOffsetDateTime,
  type StoredReportRequest,
  statusAt,
} from '../../../lib/simulator/reporting/report-requests';

function request(fate: StoredReportRequest['fate']): StoredReportRequest {
  return { createdMs: 1000, fate } as StoredReportRequest;
}

describe('parseOffsetDateTime', () => {
  it.each([
    ['2026-03-01T00:00:00Z', Date.UTC(2026, 2, 1)],
    ['2026-03-01T01:00:00+01:00', Date.UTC(2026, 2, 1)],
    ['2026-03-01T00:00Z', Date.UTC(2026, 2, 1)],
    ['2026-03-01T00:00:00.1234567-05:00', Date.UTC(2026, 2, 1, 5, 0, 0, 123)],
  ])('parses %s', (text, expected) => {
    // Act / Assess
    expect(parseOffsetDateTime(text)).toBe(expected);
  });

  it.each([
    '2026-03-01T00:00:00',
    '2026-02-29T00:00:00Z',
    '2026-03-01 00:00:00Z',
    '2026-03-01T24:00:00Z',
    'yesterday',
    20260301,
  ])('rejects %j', (text) => {
    // Act / Assess
    expect(parseOffsetDateTime(text)).toBeUndefined();
  });
});

describe('statusAt', () => {
  it.each<[StoredReportRequest['fate'], number, string]>([
    [{ kind: 'normal' }, 1000, 'Queued'],
    [{ kind: 'normal' }, 1500, 'Running'],
    [{ kind: 'normal' }, 1900, 'Running'],
    [{ kind: 'normal' }, 1999, 'Running'],
    [{ kind: 'normal' }, 2000, 'Complete'],
    [{ kind: 'fail', message: 'Boom.' }, 2000, 'Failed'],
    [{ kind: 'stuck' }, 1_000_000, 'Running'],
  ])('is %o at %i ms when latency is 1000', (fate, now, expected) => {
    // Act / Assess
    expect(statusAt(request(fate), now, 1000).status).toBe(expected);
  });

  it('is Complete at once when latency is 0', () => {
    // Act / Assess
    expect(statusAt(request({ kind: 'normal' }), 1000, 0)).toEqual({
      status: 'Complete',
      statusMessage: 'Report processing is complete.',
    });
  });
});
