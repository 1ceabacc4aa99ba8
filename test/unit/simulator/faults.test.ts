import { describe, expect, it } from 'vitest';
import { FaultController, type FaultRule, InvalidFaultRuleError } from '../../../lib/simulator/faults';

describe('FaultController', () => {
  it('consumes a rule once when times is not given', () => {
    // Prepare
    const faults = new FaultController();
    faults.inject({ route: 'data', kind: 'status', status: 503 });
    // Act
    const first = faults.take('data', ['status']);
    const second = faults.take('data', ['status']);
    // Assess
    expect(first?.kind).toBe('status');
    expect(second).toBeUndefined();
  });

  it('leaves rules of other routes and kinds armed when taking', () => {
    // Prepare
    const faults = new FaultController();
    faults.inject({ route: 'items', kind: 'status', status: 500 });
    faults.inject({ route: 'data', kind: 'latency', ms: 10 });
    // Act
    const taken = faults.take('data', ['status']);
    // Assess
    expect(taken).toBeUndefined();
    expect(faults.pending()).toHaveLength(2);
  });

  it('matches every route and counts down when the route is * and times is 2', () => {
    // Prepare
    const faults = new FaultController();
    faults.inject({ route: '*', kind: 'status', status: 429, times: 2 });
    // Act
    const taken = [
      faults.take('token', ['status']),
      faults.take('items', ['status']),
      faults.take('data', ['status']),
    ];
    // Assess
    expect(taken.map((rule) => rule?.kind)).toEqual(['status', 'status', undefined]);
  });

  it('takes the oldest rule first when several match', () => {
    // Prepare
    const faults = new FaultController();
    faults.inject({ route: 'data', kind: 'truncate', afterBytes: 1 });
    faults.inject({ route: 'data', kind: 'reset', afterBytes: 2 });
    // Act
    const taken = faults.take('data', ['reset', 'truncate']);
    // Assess
    expect(taken).toEqual({ route: 'data', kind: 'truncate', afterBytes: 1 });
  });

  it.each<[string, unknown]>([
    ['a negative latency', { route: 'data', kind: 'latency', ms: -1 }],
    ['zero times', { route: 'data', kind: 'status', status: 500, times: 0 }],
    ['report-fail on data', { route: 'data', kind: 'report-fail' }],
    ['summary-mismatch on request', { route: 'request', kind: 'summary-mismatch' }],
    [
      'summary-mismatch with a reportId that is no GUID',
      { route: 'data', kind: 'summary-mismatch', reportId: 'r1' },
    ],
  ])('throws InvalidFaultRuleError when the rule has %s', (_case, rule) => {
    // Prepare
    const faults = new FaultController();
    // Act
    const act = () => faults.inject(rule as FaultRule);
    // Assess
    expect(act).toThrow(InvalidFaultRuleError);
  });

  it('takes a summary-mismatch rule only for its report when the rule names a reportId', () => {
    // Prepare
    const mine = 'AAAAAAAA-0000-4000-8000-000000000001';
    const other = 'aaaaaaaa-0000-4000-8000-000000000002';
    const faults = new FaultController();
    faults.inject({ route: 'data', kind: 'summary-mismatch', reportId: mine });
    // Act
    const forOther = faults.take('data', ['summary-mismatch'], { reportId: other });
    const forNone = faults.take('data', ['summary-mismatch']);
    const forMine = faults.take('data', ['summary-mismatch'], { reportId: mine.toLowerCase() });
    // Assess
    expect(forOther).toBeUndefined();
    expect(forNone).toBeUndefined();
    expect(forMine).toEqual({ route: 'data', kind: 'summary-mismatch', reportId: mine });
    expect(faults.pending()).toEqual([]);
  });

  it('takes a summary-mismatch rule for any report when the rule names none', () => {
    // Prepare
    const faults = new FaultController();
    faults.inject({ route: 'data', kind: 'summary-mismatch', times: 2 });
    // Act
    const taken = [
      faults.take('data', ['summary-mismatch'], { reportId: 'aaaaaaaa-0000-4000-8000-000000000002' }),
      faults.take('data', ['summary-mismatch']),
      faults.take('data', ['summary-mismatch']),
    ];
    // Assess
    expect(taken.map((rule) => rule?.kind)).toEqual(['summary-mismatch', 'summary-mismatch', undefined]);
  });

  it('calls the expiry hook when expireAccessTokens is called', () => {
    // Prepare
    let calls = 0;
    const faults = new FaultController(() => {
      calls++;
    });
    // Act
    faults.expireAccessTokens();
    // Assess
    expect(calls).toBe(1);
  });
});
