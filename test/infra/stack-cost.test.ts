import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ICEBERG_TABLES } from '../../lib/infra/iceberg-tables';
import type { ObjectStore } from '../../lib/stores';
import type { DirectorySyncReport } from '../../lib/workflow/directory-sync-task';
import { finalizeRun } from '../../lib/workflow/finalize';
import { synthStack } from './stack-synth';
import { createOnlyTables } from './table-resources';

/**
 * The cost note of docs/alarms-and-cost.md against the synthesized stack: its tables between
 * `<!-- cost:<name> -->` markers carry the counts, and these tests count the same things in
 * the template, so a metric, alarm, key, secret or resource type added without the note fails.
 */
const README = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/alarms-and-cost.md'), 'utf8');

type Row = readonly string[];

/** The body rows of the table between `<!-- cost:<name> -->` and `<!-- /cost:<name> -->`. */
function noteTable(name: string): { header: Row; rows: Row[] } {
  const match = new RegExp(`<!-- cost:${name} -->\\n([^]*?)\\n<!-- /cost:${name} -->`).exec(README);
  if (match?.[1] === undefined) throw new Error(`docs/alarms-and-cost.md has no cost:${name} table`);
  const [header = [], , ...rows] = match[1].split('\n').map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );
  return { header, rows };
}

const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
const dollars = (cell: string) => Number(/\$([\d.]+)/.exec(cell)?.[1] ?? Number.NaN);
const integer = (cell: string) => Number(cell.replaceAll(',', ''));

/** `shown` is `exact` rounded to the digits it shows. */
function expectRounded(shown: string, exact: number): void {
  const digits = /\.(\d+)/.exec(shown)?.[1]?.length ?? 0;
  expect(Math.abs(dollars(shown) - exact), `${shown} for ${exact}`).toBeLessThanOrEqual(
    0.5 * 10 ** -digits + 1e-12,
  );
}

/**
 * The metric names Finalize publishes, from a run that published a day and synced the
 * contact directories (every nightly run does, so every one is sent).
 */
async function finalizeMetricNames(): Promise<Set<string>> {
  const names = new Set<string>();
  const report: DirectorySyncReport = { version: 1, runId: 'exec-1', tenant: null, outcomes: [] };
  const store = {
    put: async () => undefined,
    get: async () => [Buffer.from(JSON.stringify(report))],
  } as unknown as ObjectStore;
  await finalizeRun(
    {
      input: { date: '2026-06-02' },
      executionName: 'exec-1',
      startedAt: '2026-06-03T04:00:00.000Z',
      contacts: {
        status: 'SYNCED',
        report: 'lake/_staging/_directory-sync-reports/exec-1.json',
        directories: 0,
        unchanged: 0,
        staged: 0,
        committed: 0,
        held: 0,
        failed: 0,
        newVersions: 0,
        closedVersions: 0,
        deletions: 0,
      },
      results: [
        {
          jobId: 'j1',
          reportId: 'rep-1',
          reportName: 'R',
          status: 'SUCCEEDED',
          progress: { lastDate: '2026-06-02' },
        },
      ],
    },
    { store, prefix: 'lake', metrics: { add: (name) => names.add(name), flush: () => undefined } },
  );
  return names;
}

/** The resources of one type, with the properties this test reads. */
const resources = <P>(template: Template, type: string) =>
  Object.entries(template.findResources(type) as Record<string, { Properties: P }>);

interface MetricRef {
  Namespace: string;
  MetricName: string;
  Dimensions?: { Name: string; Value: unknown }[];
}
type AlarmProps = Partial<MetricRef> & { Metrics?: { MetricStat?: { Metric: MetricRef } }[] };
type FunctionProps = { Environment?: { Variables?: Record<string, string> } };
type MetricFilterProps = { MetricTransformations: unknown[] };
type TableProps = {
  Name?: string;
  TableInput?: { Name: string; PartitionKeys: { Name: string }[]; Parameters: Record<string, string> };
};

/** The metrics an alarm reads: one, or each MetricStat of a metric-math alarm (each billed). */
function alarmMetrics({ Properties: p }: { Properties: AlarmProps }): MetricRef[] {
  if (p.MetricName !== undefined && p.Namespace !== undefined) return [p as MetricRef];
  return (p.Metrics ?? []).flatMap((m) => (m.MetricStat === undefined ? [] : [m.MetricStat.Metric]));
}

/** The one value every function's environment gives a variable. */
function functionsEnvironment(template: Template, name: string): string {
  // The workflow's functions: the table creator has no environment (and publishes no metric).
  const values = new Set(
    resources<FunctionProps>(template, 'AWS::Lambda::Function').flatMap(([, f]) =>
      f.Properties.Environment === undefined ? [] : [f.Properties.Environment.Variables?.[name]],
    ),
  );
  expect([...values], name).toHaveLength(1);
  return [...values][0] as string;
}

/** The note's Athena examples assume 5 reports; nothing else it counts depends on them. */
const REPORTS = Array.from({ length: 5 }, (_, i) => ({ id: `rep-${i}`, name: `Report ${i}` }));

describe('the cost note (docs/alarms-and-cost.md)', () => {
  let template: Template;
  let hiveTemplate: Template;
  let published: Set<string>;
  beforeAll(async () => {
    template = synthStack({ reports: REPORTS });
    hiveTemplate = synthStack({ reports: REPORTS, tableFormat: 'hive' });
    published = await finalizeMetricNames();
  });

  /** What each row key of the fixed-cost table counts in the template. */
  const counters: Record<string, () => number> = {
    'AWS::KMS::Key': () => resources(template, 'AWS::KMS::Key').length,
    'AWS::SecretsManager::Secret': () => resources(template, 'AWS::SecretsManager::Secret').length,
    'AWS::CloudWatch::Alarm': () =>
      resources<AlarmProps>(template, 'AWS::CloudWatch::Alarm').reduce(
        (n, [, a]) => n + alarmMetrics(a).length,
        0,
      ),
    'AWS::CloudWatch::CompositeAlarm': () => resources(template, 'AWS::CloudWatch::CompositeAlarm').length,
    'custom metrics': () =>
      published.size +
      resources<MetricFilterProps>(template, 'AWS::Logs::MetricFilter').reduce(
        (n, [, f]) => n + f.Properties.MetricTransformations.length,
        0,
      ),
  };
  const FREE_TIER: Record<string, number> = { 'AWS::CloudWatch::Alarm': 10, 'custom metrics': 10 };

  it('counts the keys, secrets, alarms and custom metrics the stack makes, and adds them up', () => {
    // Prepare
    const { rows } = noteTable('fixed');
    const items = rows.filter((r) => !r[0]?.includes('Total'));
    const total = rows.find((r) => r[0] === '**Total**');
    const withinFreeTier = rows.find((r) => r[0]?.includes('free tier'));

    // Act
    const counted = items.map(([, key = '', count = '', price = '', perMonth = '']) => {
      const [name = ''] = codeSpans(key);
      const counter = counters[name];
      if (counter === undefined) throw new Error(`the cost note prices ${key}, which this test cannot count`);
      return { name, noted: integer(count), actual: counter(), price: dollars(price), perMonth };
    });

    // Assess: the counts are the template's, every counter has its row, and the sums hold.
    expect(counted.map((c) => [c.name, c.noted])).toEqual(counted.map((c) => [c.name, c.actual]));
    expect(counted.map((c) => c.name).sort()).toEqual(Object.keys(counters).sort());
    for (const c of counted) expectRounded(c.perMonth, c.actual * c.price);
    const sum = counted.reduce((n, c) => n + c.actual * c.price, 0);
    const free = counted.reduce((n, c) => n + Math.min(c.actual, FREE_TIER[c.name] ?? 0) * c.price, 0);
    expectRounded(total?.[4] ?? '', sum);
    expectRounded(withinFreeTier?.[4] ?? '', sum - free);
  });

  it('counts as custom metrics every one an alarm reads outside AWS namespaces', () => {
    // Prepare: Powertools Metrics publishes under the functions' namespace, with the service
    // as the one dimension; an alarm on another name or dimension would be a metric the
    // count above misses (and one nothing publishes).
    const namespace = functionsEnvironment(template, 'POWERTOOLS_METRICS_NAMESPACE');
    const service = functionsEnvironment(template, 'POWERTOOLS_SERVICE_NAME');

    // Act
    const custom = resources<AlarmProps>(template, 'AWS::CloudWatch::Alarm')
      .flatMap(([, a]) => alarmMetrics(a))
      .filter((m) => !m.Namespace.startsWith('AWS/'));

    // Assess
    expect(custom.length).toBeGreaterThan(0);
    for (const m of custom) {
      expect(m.Namespace).toBe(namespace);
      expect([...published]).toContain(m.MetricName);
      expect(m.Dimensions).toEqual([{ Name: 'service', Value: service }]);
    }
  });

  it('names every resource type of the stack, priced or billed by use only', () => {
    // Prepare
    const priced = noteTable('fixed').rows.flatMap((r) => codeSpans(r[1] ?? ''));
    const perUse = noteTable('per-use').rows.flatMap((r) => codeSpans(r[0] ?? ''));

    // Act
    const types = new Set(
      Object.values(template.toJSON().Resources as Record<string, { Type: string }>).map((r) => r.Type),
    );
    const unnamed = [...types].filter((t) => !priced.includes(t) && !perUse.includes(t));

    // Assess
    expect(unnamed).toEqual([]);
  });

  it('names every alarm in the first column of the Alarms table', () => {
    // Prepare: a construct's logical id is its path without separators plus an 8-digit hash.
    const alarmColumn = README.slice(README.indexOf('## Alarms'), README.indexOf('## cdk-nag'))
      .split('\n')
      .filter((line) => line.startsWith('| '))
      .map((line) => line.split('|')[1])
      .join('\n');
    const ids = [
      ...resources<AlarmProps>(template, 'AWS::CloudWatch::Alarm'),
      ...resources(template, 'AWS::CloudWatch::CompositeAlarm'),
    ].map(([logicalId]) => logicalId.replace(/^Alarms/, '').replace(/[0-9A-F]{8}$/, ''));

    // Assess
    expect(ids.filter((id) => !alarmColumn.includes(id))).toEqual([]);
  });

  it('projects no partitions of the Iceberg tables: Athena plans their queries from the table metadata', () => {
    // Act
    const projected = resources<TableProps>(template, 'AWS::Glue::Table').map(
      ([, t]) => t.Properties.TableInput?.Name,
    );
    const iceberg = createOnlyTables(template).map((t) => t.create.Name);

    // Assess: only the run records are projected; calls, summaries and the contact tables are
    // Iceberg tables (the stack creates them once), and the note's LIST counts for calls and
    // summaries are the Hive layout's.
    expect(projected).toEqual(['runs']);
    expect(iceberg.sort()).toEqual([...ICEBERG_TABLES].sort());
    for (const r of noteTable('athena-lists').rows.filter((row) => /`(calls|summaries)`/.test(row[1] ?? '')))
      expect(r[1]).toContain("`tableFormat: 'hive'`");
  });

  it("counts Athena's LIST requests from the tables' partition projection", () => {
    // Prepare
    const { header, rows } = noteTable('athena-lists');
    const listPrice = dollars(header[5] ?? '') / 1000;

    for (const [, table = '', days = '', reports = '', lists = '', cost = ''] of rows) {
      // Act: every partition key multiplies the partitions: an enum by its values, the date by the days.
      const [name, format] = codeSpans(table);
      expect(integer(reports)).toBe(REPORTS.length);
      const glue = resources<TableProps>(
        format === "tableFormat: 'hive'" ? hiveTemplate : template,
        'AWS::Glue::Table',
      ).find(([, t]) => t.Properties.TableInput?.Name === name);
      if (glue === undefined) throw new Error(`no Glue table ${name}`);
      const input = glue[1].Properties.TableInput as NonNullable<TableProps['TableInput']>;
      const projected = (input.PartitionKeys as { Name: string }[]).reduce((n, { Name }) => {
        const type = input.Parameters[`projection.${Name}.type`];
        if (type === 'enum')
          return n * String(input.Parameters[`projection.${Name}.values`]).split(',').length;
        if (type === 'date') return n * integer(days);
        throw new Error(
          `table ${name}: partition key ${Name} is projected as ${type}: count it here and in the note`,
        );
      }, 1);

      // Assess
      expect([name, integer(lists)]).toEqual([name, projected]);
      expectRounded(cost, projected * listPrice);
    }
  });
});
