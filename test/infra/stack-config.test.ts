import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  configFromContext,
  INFRA_ERROR_CODES,
  resolveStackConfig,
  STACK_DEFAULTS,
  StackConfigError,
} from '../../lib/infra/stack-config';
import { settingsEnvironment, workflowEnvironment } from '../../lib/infra/workflow-environment';
import { settingsFromEnvironment } from '../../lib/workflow/settings';
import { BASE_CONFIG, MULTI_TENANT_CONFIG } from './stack-synth';

const LOCATIONS = { objectStoreUri: 's3://b/lake', leaseStoreUri: 's3://b/_leases', secretUri: 'arn:secret' };
/** Every required setting. */
const CONFIG = { ...BASE_CONFIG, dataStartDate: '2025-03-01' };

describe('resolveStackConfig', () => {
  it('applies every default when only the required settings are given', () => {
    // Act
    const c = resolveStackConfig(CONFIG);

    // Assess
    expect(c).toMatchObject({
      ...STACK_DEFAULTS,
      dataStartDate: '2025-03-01',
      alarmEmail: undefined,
      dataset: 'calls',
    });
  });

  it('fails naming dataStartDate and what to put when it is missing: no default start of the projection', () => {
    // Prepare
    const { dataStartDate: _, ...withoutStart } = CONFIG;

    // Act
    const act = () => resolveStackConfig(withoutStart);

    // Assess
    expect(act).toThrow(StackConfigError);
    expect(act).toThrow(
      /dataStartDate is required: put the first local date \(YYYY-MM-DD\) this deployment will export/,
    );
    expect(STACK_DEFAULTS).not.toHaveProperty('dataStartDate');
  });

  it("accepts cdk.json's example configuration, which names its dataStartDate", () => {
    // Prepare
    const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
      context: { reportExport: unknown };
    };

    // Act
    const c = resolveStackConfig(configFromContext(cdkJson.context.reportExport));

    // Assess
    expect(c.dataStartDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(c.dataStartDate).toBe((cdkJson.context.reportExport as { dataStartDate: string }).dataStartDate);
  });

  it.each([
    [{ timeZone: 'Europe/Londn' }, 'timeZone "Europe/Londn" is not an IANA zone'],
    [{ reports: [] }, 'reports'],
    [{ reports: [{ id: 'a/b', name: 'x' }] }, 'reports.0.id "a/b" is not an S3 key segment'],
    [{ reports: [{ id: '_a', name: 'x' }] }, 'reports.0.id "_a"'],
    [
      {
        reports: [
          { id: 'a', name: 'x' },
          { id: 'a', name: 'y' },
        ],
      },
      'reports has a duplicate id',
    ],
    [
      {
        reports: [
          { id: 'a', name: 'x' },
          { id: 'b', name: 'x' },
        ],
      },
      'reports has a duplicate name',
    ],
    [{ mapConcurrency: 0 }, 'mapConcurrency 0'],
    [{ schedule: { hour: 24 } }, 'schedule.hour 24'],
    [{ schedule: { minute: 60 } }, 'schedule.minute 60'],
    [{ lookBackDays: 91 }, 'lookBackDays 91'],
    [{ poll: { maxPollsPerJob: 0 } }, 'poll.maxPollsPerJob 0'],
    [{ parquetCodec: 'GZIP' }, 'parquetCodec "GZIP"'],
    [{ prefix: '/lake' }, 'prefix "/lake"'],
    [{ prefix: 'lake/' }, 'prefix "lake/"'],
    [{ prefix: 'a/_b' }, 'prefix "a/_b"'],
    [{ alarmEmail: 'nobody' }, 'alarmEmail "nobody"'],
    [{ freshnessHours: 169 }, 'freshnessHours 169'],
    [{ freshnessHours: 1.5 }, 'freshnessHours 1.5'],
    [{ athenaBytesScannedCutoff: 1000 }, 'athenaBytesScannedCutoff 1000'],
    [{ dataStartDate: '2021-02-30' }, 'dataStartDate "2021-02-30" is not a YYYY-MM-DD date'],
    [{ dataStartDate: '2021-13-01' }, 'dataStartDate "2021-13-01" is not a YYYY-MM-DD date'],
    [{ dataStartDate: 20210101 }, 'dataStartDate 20210101 must be a "YYYY-MM-DD" string'],
    [{ databaseName: 'Report-Export' }, 'databaseName "Report-Export"'],
    [{ unknownSetting: 1 }, 'unknownSetting'],
    [{ promotedColumns: { calls: [{ name: 'userName', type: 'string' }] } }, 'promotedColumns.calls'],
    [{ promotedColumns: { calls: [{ name: 'a b', type: 'string' }] } }, 'promotedColumns.calls'],
    [{ promotedColumns: { calls: [{ name: 'x', type: 'money' }] } }, 'promotedColumns.calls.0.type'],
    [{ promotedColumns: { facts: [] } }, 'facts'],
    [{ summaryMismatch: 'warn' }, 'summaryMismatch "warn"'],
    [{ minShareOfPublished: 1.5 }, 'minShareOfPublished 1.5'],
    [
      { tableFormat: 'delta' },
      'tableFormat "delta" must be "iceberg" (Iceberg tables in the Glue catalog) or "hive"',
    ],
    [{ tableFormat: 'Iceberg' }, 'tableFormat "Iceberg" must be "iceberg"'],
  ])('names the setting when the configuration has %j', (override, named) => {
    // Act
    const act = () => resolveStackConfig({ ...CONFIG, ...override });

    // Assess
    expect(act).toThrow(StackConfigError);
    expect(act).toThrow(named);
  });

  it('resolves a multi-tenant configuration without the tenant settings, which the registry holds', () => {
    // Act
    const c = resolveStackConfig(MULTI_TENANT_CONFIG);

    // Assess
    expect(c.tenancy).toBe('multi');
    expect(c).not.toHaveProperty('workspaceId');
    expect(c).not.toHaveProperty('schedule');
    expect(resolveStackConfig(CONFIG).tenancy).toBe('single');
  });

  it.each([
    [{ workspaceId: 'ws' }, 'workspaceId "ws" is set per tenant'],
    [{ reports: BASE_CONFIG.reports }, 'reports is set per tenant'],
    [{ timeZone: 'Europe/London' }, 'timeZone "Europe/London" is set per tenant'],
    [{ schedule: { hour: 3 } }, 'schedule is set per tenant'],
    [{ tableFormat: 'hive' }, `tableFormat "hive" must be "iceberg" with tenancy 'multi'`],
    [{ tenancy: 'many' }, 'tenancy "many" must be "single"'],
  ])('names the setting a multi-tenant configuration refuses when it has %j', (override, named) => {
    // Act
    const act = () => resolveStackConfig({ ...MULTI_TENANT_CONFIG, ...override });

    // Assess
    expect(act).toThrow(StackConfigError);
    expect(act).toThrow(named);
  });

  it.each(['workspaceId', 'reports', 'timeZone'] as const)(
    'names %s when a single-tenant configuration lacks it',
    (name) => {
      // Prepare
      const { [name]: _, ...without } = CONFIG;

      // Act / Assess
      expect(() => resolveStackConfig(without)).toThrow(`${name} is required (tenancy: single)`);
    },
  );

  it('fails with INFRA_CONFIG_INVALID and a literal error name when the context is missing', () => {
    try {
      configFromContext(undefined);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(StackConfigError);
      expect((error as StackConfigError).code).toBe(INFRA_ERROR_CODES.configInvalid);
      expect((error as Error).name).toBe('StackConfigError');
      expect((error as Error).message).toContain('reportExport');
    }
  });
});

describe('workflowEnvironment', () => {
  it('gives the handlers settings their own validation accepts, equal to the configuration', () => {
    // Prepare
    const c = resolveStackConfig({
      ...CONFIG,
      lookBackDays: 4,
      poll: { initialSeconds: 3, maxSeconds: 30, maxPollsPerJob: 12 },
      csvGzip: true,
      parquetCodec: 'ZSTD',
      promotedColumns: {
        calls: [{ name: 'accountCode', type: 'string' }],
        summaries: [{ name: 'calls', type: 'int' }],
      },
      summaryMismatch: 'fail',
      minShareOfPublished: 0.25,
    });

    // Act
    const settings = settingsFromEnvironment(workflowEnvironment(c, LOCATIONS));

    // Assess
    expect(settings).toMatchObject({
      timeZone: 'Europe/London',
      workspaceId: 'ws',
      reports: BASE_CONFIG.reports,
      lookBackDays: 4,
      poll: { initialSeconds: 3, maxSeconds: 30, maxPollsPerJob: 12 },
      csvGzip: true,
      parquetCodec: 'ZSTD',
      promotedColumns: {
        calls: [{ name: 'accountCode', type: 'string' }],
        summaries: [{ name: 'calls', type: 'int' }],
      },
      summaryMismatch: 'fail',
      minShareOfPublished: 0.25,
    });
  });

  it.each([
    [{}, 'glue:report_export'],
    [{ tableFormat: 'iceberg', databaseName: 'lake_db' }, 'glue:lake_db'],
    [{ tableFormat: 'hive' }, 'hive'],
  ] as const)('names the table catalog TABLE_CATALOG when the configuration has %j', (override, expected) => {
    // Act
    const env = workflowEnvironment(resolveStackConfig({ ...CONFIG, ...override }), LOCATIONS);

    // Assess
    expect(env.TABLE_CATALOG).toBe(expected);
  });

  it("gives a multi-tenant deployment's functions the registry, the secrets' template and the role, and no tenant settings", () => {
    // Prepare
    const locations = {
      objectStoreUri: 's3://b/lake',
      leaseStoreUri: 's3://b/_leases',
      tenantRegistryUri: 's3://b/_tenants',
      tenantSecretUri: 'secretsmanager:report-export/S/tenants/{tenant}',
      tenantRoleArn: 'arn:aws:iam::123456789012:role/TenantAccess',
    };

    // Act
    const env = workflowEnvironment(
      resolveStackConfig({ ...MULTI_TENANT_CONFIG, lookBackDays: 3 }),
      locations,
    );

    // Assess
    expect(env).toMatchObject({
      TENANT_REGISTRY_URI: 's3://b/_tenants',
      TENANT_SECRET_URI: 'secretsmanager:report-export/S/tenants/{tenant}',
      TENANT_ROLE_ARN: 'arn:aws:iam::123456789012:role/TenantAccess',
      OBJECT_STORE_URI: 's3://b/lake',
      LOOKBACK_DAYS: '3',
    });
    for (const name of ['TIME_ZONE', 'WORKSPACE_ID', 'REPORTS', 'SECRET_URI'])
      expect(env).not.toHaveProperty(name);
  });

  it('passes the store and secret locations through', () => {
    const env = workflowEnvironment(resolveStackConfig(CONFIG), LOCATIONS);
    expect(env).toMatchObject({
      OBJECT_STORE_URI: 's3://b/lake',
      LEASE_STORE_URI: 's3://b/_leases',
      SECRET_URI: 'arn:secret',
    });
  });

  it("fails synthesis with the handler's message when a value passes the config schema but not the handlers", () => {
    // Prepare: a workspace id the config accepts, emptied after resolution as a drift would.
    const c = { ...resolveStackConfig(CONFIG), workspaceId: '' };

    // Act / Assess
    expect(() => workflowEnvironment(c, LOCATIONS)).toThrow(
      /Invalid reportExport configuration: .*WORKSPACE_ID/,
    );
    expect(Object.keys(settingsEnvironment(c)).sort()).toEqual(
      [
        'CSV_GZIP',
        'LOOKBACK_DAYS',
        'MAX_POLLS_PER_JOB',
        'MAX_REQUESTS_PER_JOB',
        'MAX_WINDOW_DAYS',
        'MIN_SHARE_OF_PUBLISHED',
        'MIN_SPLIT_MINUTES',
        'PARQUET_CODEC',
        'POLL_INITIAL_SECONDS',
        'POLL_MAX_SECONDS',
        'REPORTS',
        'SUMMARY_MISMATCH',
        'TIME_ZONE',
        'WORKSPACE_ID',
      ].sort(),
    );
  });
});
