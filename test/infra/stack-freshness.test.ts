import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { synthStack } from './stack-synth';

/**
 * The freshness alarm against the synthesized template: its resources, and which alarms
 * that notify the topic are in ALARM over timelines of runs, by a small model of how
 * CloudWatch evaluates them (one datapoint per alarm period, missing-data treatment,
 * composite rules), read from the template, so a change of threshold, statistic,
 * period, treatment or rule changes the outcome.
 */

type State = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
type Resource = { Type: string; Properties: Record<string, unknown> };

/** One moment, in hours after the deploy; `published` are NewestDayAge values (hours) Finalize sends then. */
interface Step {
  readonly at: number;
  readonly published?: readonly number[];
}

const START = { dataStartDate: '2025-01-01' };

/** A template value with `Fn::GetAtt`/`Ref` made the logical id (enough for alarm rules and actions). */
function flatten(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, unknown>;
  if ('Fn::Join' in v) {
    const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map(flatten).join(sep);
  }
  if ('Fn::GetAtt' in v) return (v['Fn::GetAtt'] as [string, string])[0];
  if ('Ref' in v) return v.Ref as string;
  throw new Error(`cannot flatten ${JSON.stringify(value)}`);
}

const AGGREGATE: Record<string, (xs: number[]) => number> = {
  Minimum: (xs) => Math.min(...xs),
  Maximum: (xs) => Math.max(...xs),
  SampleCount: (xs) => xs.length,
  Sum: (xs) => xs.reduce((a, b) => a + b, 0),
  Average: (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
};
const COMPARE: Record<string, (x: number, t: number) => boolean> = {
  GreaterThanThreshold: (x, t) => x > t,
  GreaterThanOrEqualToThreshold: (x, t) => x >= t,
  LessThanThreshold: (x, t) => x < t,
  LessThanOrEqualToThreshold: (x, t) => x <= t,
};

/** Evaluates a composite rule (`ALARM("id") AND NOT (OK("id") OR ...)`) on the children's states. */
function evaluateRule(rule: string, states: ReadonlyMap<string, State>): boolean {
  const tokens = rule.match(/(ALARM|OK|INSUFFICIENT_DATA)\("[^"]+"\)|AND|OR|NOT|TRUE|FALSE|\(|\)/g) ?? [];
  let i = 0;
  const factor = (): boolean => {
    const t = tokens[i++];
    if (t === 'NOT') return !factor();
    if (t === 'TRUE' || t === 'FALSE') return t === 'TRUE';
    if (t === '(') {
      const v = expr();
      i++; // ')'
      return v;
    }
    const m = /^(ALARM|OK|INSUFFICIENT_DATA)\("([^"]+)"\)$/.exec(t ?? '');
    if (m === null) throw new Error(`unexpected ${t} in ${rule}`);
    const state = states.get(m[2] as string);
    if (state === undefined) throw new Error(`rule names an unknown alarm ${m[2]}`);
    return state === m[1];
  };
  const term = (): boolean => {
    let v = factor();
    while (tokens[i] === 'AND') {
      i++;
      v = factor() && v;
    }
    return v;
  };
  const expr = (): boolean => {
    let v = term();
    while (tokens[i] === 'OR') {
      i++;
      v = term() || v;
    }
    return v;
  };
  return expr();
}

/** Names (construct ids) of the alarms that notify the topic and are in ALARM after the last step. */
function notifyingInAlarm(template: Template, steps: readonly Step[]): string[] {
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const metricAlarms = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
  const composites = Object.entries(resources).filter(
    ([, r]) => r.Type === 'AWS::CloudWatch::CompositeAlarm',
  );
  const states = new Map<string, State>(
    [...metricAlarms, ...composites].map(([id]) => [id, 'INSUFFICIENT_DATA'] as const),
  );
  const samples: { at: number; seconds: number }[] = [];
  for (const step of steps) {
    for (const hours of step.published ?? []) samples.push({ at: step.at, seconds: hours * 3600 });
    for (const [id, { Properties: p }] of metricAlarms) {
      expect(p.EvaluationPeriods).toBe(1); // the model covers one-datapoint alarms only
      const periodHours = (p.Period as number) / 3600;
      const values =
        p.MetricName === 'NewestDayAge'
          ? samples.filter((s) => s.at <= step.at && s.at > step.at - periodHours).map((s) => s.seconds)
          : [];
      const missing = p.TreatMissingData as string;
      let next: State;
      if (values.length > 0) {
        const value = (AGGREGATE[p.Statistic as string] as (xs: number[]) => number)(values);
        const breach = COMPARE[p.ComparisonOperator as string] as (x: number, t: number) => boolean;
        next = breach(value, p.Threshold as number) ? 'ALARM' : 'OK';
      } else if (missing === 'breaching') next = 'ALARM';
      else if (missing === 'notBreaching') next = 'OK';
      else if (missing === 'ignore') next = states.get(id) as State;
      else next = 'INSUFFICIENT_DATA';
      states.set(id, next);
    }
    for (const [id, { Properties: p }] of composites) {
      states.set(id, evaluateRule(flatten(p.AlarmRule), states) ? 'ALARM' : 'OK');
    }
  }
  const notifies = ([, r]: [string, Resource]) =>
    ((r.Properties.AlarmActions as unknown[] | undefined) ?? []).some((a) => /AlarmTopic/.test(flatten(a)));
  return [...metricAlarms, ...composites]
    .filter(notifies)
    .filter(([id]) => states.get(id) === 'ALARM')
    .map(([id]) => id.replace(/^Alarms/, '').replace(/[0-9A-F]{8}$/, ''))
    .sort();
}

describe('ReportExportStack freshness alarm', () => {
  let template: Template;

  beforeAll(() => {
    template = synthStack(START);
  }, 60_000);

  // freshnessHours is 26; the nightly run is ~18 h after a daytime deploy and publishes an
  // age of ~4.5 h (yesterday ended at midnight, the run finishes after 04:00).
  it.each<[string[], string, Step[]]>([
    [[], 'on deploy day, before any run', [{ at: 1 }]],
    [[], 'two days after deploy when no run has exported yet', [{ at: 1 }, { at: 48 }]],
    [[], 'after the first nightly run exported yesterday', [{ at: 1 }, { at: 18, published: [4.5] }]],
    [
      [],
      'while nightly runs export yesterday',
      [{ at: 18, published: [4.5] }, { at: 42, published: [4.5] }, { at: 66, published: [4.5] }, { at: 80 }],
    ],
    [
      [],
      'when a backfill of old days runs beside the nightly run',
      [
        { at: 18, published: [4.5] },
        { at: 20, published: [2000] },
      ],
    ],
    [
      ['FreshnessStale'],
      'when no run publishes for more than freshnessHours after the first export',
      [{ at: 1 }, { at: 18, published: [4.5] }, { at: 45 }],
    ],
    [
      ['FreshnessStale'],
      'when exports stay stopped for a week',
      [{ at: 18, published: [4.5] }, { at: 45 }, { at: 18 + 7 * 24 }],
    ],
    [
      ['FreshnessStale'],
      'when runs go on but the newest exported day falls two days behind',
      [{ at: 18, published: [4.5] }, { at: 42, published: [28.5] }, { at: 45 }],
    ],
  ])('raises %j %s', (expected, _when, steps) => {
    expect(notifyingInAlarm(template, steps)).toEqual(expected);
  });

  it('notifies from the composite only; its inputs have no action', () => {
    // Assess
    template.resourceCountIs('AWS::CloudWatch::CompositeAlarm', 1);
    template.hasResourceProperties('AWS::CloudWatch::CompositeAlarm', {
      AlarmActions: [{ Ref: Match.stringLikeRegexp('AlarmTopic') }],
      AlarmRule: {
        'Fn::Join': [
          '',
          [
            '(ALARM("',
            { 'Fn::GetAtt': [Match.stringLikeRegexp('^AlarmsFreshnessWindow'), 'Arn'] },
            '") AND OK("',
            { 'Fn::GetAtt': [Match.stringLikeRegexp('^AlarmsFreshnessArmed'), 'Arn'] },
            '"))',
          ],
        ],
      },
    });
    const inputs = template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'NewestDayAge' },
    });
    expect(Object.keys(inputs)).toHaveLength(2);
    for (const r of Object.values(inputs)) expect(r.Properties).not.toHaveProperty('AlarmActions');
  });

  it('makes the missing-data treatment explicit: breaching in the window, kept by the latch', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'ReportExport',
      MetricName: 'NewestDayAge',
      Dimensions: [{ Name: 'service', Value: 'report-export' }],
      Statistic: 'Minimum',
      Period: 26 * 3600,
      Threshold: 26 * 3600,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'breaching',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'ReportExport',
      MetricName: 'NewestDayAge',
      Dimensions: [{ Name: 'service', Value: 'report-export' }],
      Statistic: 'SampleCount',
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'ignore',
    });
  });

  it('follows freshnessHours in the window and its threshold', () => {
    // Act
    const t = synthStack({ ...START, freshnessHours: 30 });

    // Assess
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'NewestDayAge',
      Statistic: 'Minimum',
      Period: 30 * 3600,
      Threshold: 30 * 3600,
    });
  }, 60_000);
});
