import { describe, expect, it } from 'vitest';
import { parseRunRecordKey, runRecordKey, runRecordsPrefix } from '../../../lib/workflow/run-record';

const startedAt = '2026-11-21T02:00:00.000Z';

describe('run record keys', () => {
  it.each([
    ['lake', undefined, 'run', 'lake/runs/dt=2026-11-21/run-1.json'],
    ['', undefined, 'failure', 'runs/dt=2026-11-21/run-1.failure.json'],
    ['lake', 'acme', 'run', 'lake/runs/tenant=acme/dt=2026-11-21/run-1.json'],
    ['', 'a-1', 'failure', 'runs/tenant=a-1/dt=2026-11-21/run-1.failure.json'],
  ] as const)(
    'writes under %j, tenant %j (%s) at %s, and reads the key back',
    (prefix, tenant, kind, key) => {
      // Act
      const written = runRecordKey(
        prefix,
        { runId: 'run-1', startedAt, ...(tenant ? { tenant } : {}) },
        kind,
      );
      // Assess
      expect(written).toBe(key);
      expect(written.startsWith(runRecordsPrefix(prefix, tenant))).toBe(true);
      expect(written.startsWith(runRecordsPrefix(prefix))).toBe(true);
      expect(parseRunRecordKey(written)).toEqual({
        tenant: tenant ?? null,
        dt: '2026-11-21',
        runId: 'run-1',
        kind,
      });
    },
  );

  it("lists one tenant's records apart from another's whose id starts alike", () => {
    expect(runRecordsPrefix('lake', 'acme')).toBe('lake/runs/tenant=acme/');
    expect(
      runRecordKey('lake', { runId: 'r', startedAt, tenant: 'acme-2' }).startsWith('lake/runs/tenant=acme/'),
    ).toBe(false);
  });

  it.each([
    'lake/runs/dt=2026-11-21/',
    'lake/runs/tenant=Acme/dt=2026-11-21/r.json',
    'lake/other/dt=2026-11-21/r.json',
  ])('reads %s as no run record', (key) => {
    expect(parseRunRecordKey(key)).toBeUndefined();
  });
});
