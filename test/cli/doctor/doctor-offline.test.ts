import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { GlueClient } from '@aws-sdk/client-glue';
import { LakeFormationClient } from '@aws-sdk/client-lakeformation';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../../support/cli-in-process';
import { runCli } from '../../support/cli-process';
import { useTempDir } from '../../support/test-scope';
import {
  leakedSecrets,
  MULTI_TENANT_CDK,
  newestMetadata,
  SECRETS,
  statuses,
  tenantEntry,
  writeDeployment,
} from './deployment';

describe('report-export doctor (offline: a local deployment on disk, no network)', () => {
  const root = useTempDir('doctor-offline-');
  // Every AWS client doctor could make: mocked, so a call of an offline run is seen (and answered by nothing).
  const aws = [
    mockClient(CloudFormationClient),
    mockClient(GlueClient),
    mockClient(LakeFormationClient),
    mockClient(LambdaClient),
    mockClient(S3Client),
    mockClient(SchedulerClient),
    mockClient(SecretsManagerClient),
    mockClient(STSClient),
  ];
  const fetched: string[] = [];
  let n = 0;

  beforeAll(() => {
    vi.stubGlobal('fetch', async (input: string | URL | Request) => {
      fetched.push(String(input));
      throw new Error('doctor went on the network offline');
    });
  });

  afterAll(() => {
    vi.unstubAllGlobals();
    for (const m of aws) m.restore();
  });

  beforeEach(() => {
    for (const m of aws) m.resetHistory();
    fetched.length = 0;
  });

  afterEach(() => {
    // Assess (every test): nothing asked AWS or any service.
    expect(aws.map((m) => m.calls().length)).toEqual(aws.map(() => 0));
    expect(fetched).toEqual([]);
  });

  /** A deployment directory of its own for one test. */
  async function deployment(fixture: Parameters<typeof writeDeployment>[1]): Promise<string> {
    const cwd = path.join(root(), `d-${++n}`);
    await mkdir(cwd);
    await writeDeployment(cwd, fixture);
    return cwd;
  }

  const doctor = (cwd: string, argv: string[] = []) =>
    runInProcess(['doctor', ...argv], {
      cwd,
      cleanEnv: true,
      env: { REPORT_EXPORT_CLIENT_SECRET: SECRETS.envClientSecret },
    });

  it('is healthy (exit 0) for a valid registry, stored logins, readable tables and a valid cdk.json', async () => {
    // Prepare
    const cwd = await deployment({
      tenants: [{ id: 'acme' }, { id: 'bruin' }],
      lake: true,
      cdk: MULTI_TENANT_CDK,
    });

    // Act
    const r = await doctor(cwd, ['--json']);

    // Assess
    expect(r.code, r.stdout).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      version: 1,
      status: 'ok',
      exitCode: 0,
      mode: 'offline',
      target: { kind: 'local', dir: path.join(cwd, '.report-export'), lake: path.join(cwd, 'data-lake') },
      counts: { ok: 7, warn: 0, fail: 0, skip: 1 },
    });
    expect(statuses(report)).toEqual([
      'config.settings: ok',
      'config.stack: ok',
      'registry.entries: ok',
      'login.default: skip',
      'login.tenant acme: ok',
      'login.tenant bruin: ok',
      'lake.tables: ok',
      'lake.table calls: ok',
    ]);
    expect(report.checks[2]).toMatchObject({
      group: 'registry',
      message: '2 valid (acme, bruin)',
      fix: null,
    });
    expect(report.checks[7].message).toMatch(/^snapshot \d+ of 20\d\d-.*, \d+ data files?$/);
    expect(report.checks[1].message).toContain('multi-tenant, database report_export, ExportResults 1769 MB');
    expect(leakedSecrets(r.stdout + r.stderr)).toEqual([]);
  });

  it('fails (exit 1) naming a damaged registry entry and its fault, and warns of a file the registry passes over', async () => {
    // Prepare: bruin's hour is out of range; Acme.json is no tenant id.
    const cwd = await deployment({
      tenants: [{ id: 'acme' }, { id: 'bruin', entry: tenantEntry('bruin', { hour: 24 }) }],
      cdk: MULTI_TENANT_CDK,
    });
    await writeFile(
      path.join(cwd, '.report-export', 'tenants', 'Acme.json'),
      JSON.stringify(tenantEntry('acme')),
    );

    // Act
    const r = await doctor(cwd, ['--json']);

    // Assess
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.status).toBe('fail');
    const registry = report.checks.filter((c: { group: string }) => c.group === 'registry');
    expect(registry).toEqual([
      expect.objectContaining({
        id: 'registry.entries',
        status: 'ok',
        message: '1 valid (acme), 1 damaged (below): no run of that tenant starts',
      }),
      expect.objectContaining({
        id: 'registry.entry',
        subject: 'bruin',
        status: 'fail',
        message: expect.stringMatching(/bruin\.json: Invalid tenant entry 'bruin': .*hour/),
        fix: expect.stringContaining('report-export tenants add bruin'),
      }),
      expect.objectContaining({
        id: 'registry.entry',
        subject: 'Acme.json',
        status: 'warn',
        message: expect.stringContaining('is passed over'),
      }),
    ]);
    // The damaged tenant has no login check (no run of it can start): the valid one has.
    expect(statuses(report).filter((s) => s.startsWith('login.tenant'))).toEqual(['login.tenant acme: ok']);
  });

  it("fails a tenant whose login is missing, only warns of a disabled one's, and names the login command", async () => {
    // Prepare
    const cwd = await deployment({
      tenants: [
        { id: 'acme' },
        { id: 'bruin', login: false },
        { id: 'cobalt', login: false, entry: tenantEntry('cobalt', { enabled: false }) },
      ],
    });

    // Act
    const r = await doctor(cwd, ['--json']);

    // Assess
    expect(r.code).toBe(1);
    const logins = JSON.parse(r.stdout).checks.filter((c: { id: string }) => c.id === 'login.tenant');
    expect(logins).toEqual([
      expect.objectContaining({ subject: 'acme', status: 'ok' }),
      expect.objectContaining({
        subject: 'bruin',
        status: 'fail',
        message: `no login: ${path.join(cwd, '.report-export', 'secrets', 'bruin.json')} does not exist`,
        fix: 'report-export tenants login bruin --client-id <id>',
      }),
      expect.objectContaining({
        subject: 'cobalt',
        status: 'warn',
        message: expect.stringContaining('(the tenant is disabled)'),
      }),
    ]);
  });

  it('fails a table whose metadata cannot be read, naming the table and the fix, counted once', async () => {
    // Prepare: a lake with the calls table, then its current metadata file damaged.
    const cwd = await deployment({ tenants: [{ id: 'acme' }], lake: true });
    await writeFile(await newestMetadata(cwd, 'calls'), '{"format-version": 2, "table-uuid"');

    // Act
    const r = await doctor(cwd, ['--json']);

    // Assess
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).counts.fail).toBe(1);
    const lake = JSON.parse(r.stdout).checks.filter((c: { group: string }) => c.group === 'lake');
    expect(lake).toEqual([
      expect.objectContaining({
        id: 'lake.tables',
        status: 'ok',
        message: `1 Iceberg table in ${path.join(cwd, 'data-lake')} (calls), 1 unreadable (below): queries and the next commit to it fail`,
      }),
      expect.objectContaining({
        id: 'lake.table',
        subject: 'calls',
        status: 'fail',
        message: expect.stringMatching(/^cannot be read: /),
        fix: expect.stringContaining(path.join(cwd, 'data-lake', 'tables', 'calls', 'metadata')),
      }),
    ]);
  });

  it('exits 3 on warnings only: a login file others may read, named with the chmod that fixes it', async () => {
    // Prepare
    const cwd = await deployment({ tenants: [{ id: 'acme' }] });
    const file = path.join(cwd, '.report-export', 'secrets', 'acme.json');
    await chmod(file, 0o644);

    // Act
    const r = await doctor(cwd, ['--json']);

    // Assess
    expect(r.code).toBe(3);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ status: 'warn', exitCode: 3, counts: { fail: 0, warn: 1 } });
    expect(report.checks.find((c: { id: string }) => c.id === 'login.tenant')).toMatchObject({
      status: 'warn',
      message: `the secret file ${file} may be read by other users (mode 644); it holds the login's tokens`,
      fix: `chmod 600 ${file}`,
    });
  });

  it('fails a cdk.json synthesis would refuse, naming the setting, and a configuration value, naming its source', async () => {
    // Prepare
    const cwd = await deployment({
      cdk: { tenancy: 'multi', dataStartDate: '2026-01-01', exportMemoryMb: 20000 },
    });

    // Act
    const r = await runInProcess(['doctor', '--json'], {
      cwd,
      cleanEnv: true,
      env: { REPORT_EXPORT_REGION: 'moon' },
    });

    // Assess
    expect(r.code).toBe(1);
    const [settings, stack] = JSON.parse(r.stdout).checks;
    expect(settings).toMatchObject({
      id: 'config.settings',
      status: 'fail',
      message: expect.stringContaining('REPORT_EXPORT_REGION'),
    });
    expect(stack).toMatchObject({
      id: 'config.stack',
      status: 'fail',
      message: expect.stringContaining('exportMemoryMb 20000'),
    });
  });

  it('prints one line per check, grouped, with the fix, the counts and the exit status; no secret', async () => {
    // Prepare
    const cwd = await deployment({ tenants: [{ id: 'acme' }, { id: 'bruin', login: false }] });

    // Act
    const r = await doctor(cwd);

    // Assess
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`report-export doctor: local deployment ${path.join(cwd, '.report-export')}`);
    expect(r.stdout).toMatch(
      /\nLogins\n {2}skip {2}login\.default: .*\n {2}ok {4}login\.tenant acme: stored in .*acme\.json/,
    );
    expect(r.stdout).toContain(
      `  FAIL  login.tenant bruin: no login: ${path.join(cwd, '.report-export', 'secrets', 'bruin.json')} does not exist; fix: report-export tenants login bruin --client-id <id>\n`,
    );
    expect(r.stdout).toMatch(/\n1 failure, 0 warnings, \d+ ok, \d+ skipped: exit 1\n$/);
    expect(leakedSecrets(r.stdout + r.stderr)).toEqual([]);
  });

  it('refuses --stack without --check (exit 2): offline, it reads nothing of AWS', async () => {
    const r = await doctor(root(), ['--stack', 'ReportExport']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--stack names a deployed stack, which only --check asks AWS about: add --check',
    );
  });

  it('states the exit codes and what --check asks in its help', async () => {
    const r = await doctor(root(), ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'Exit status: 0 every check ok (or skipped), 3 warnings only, 1 at least one check failed',
    );
    expect(r.stdout).toContain('Lake Formation GetDataLakeSettings');
    expect(r.stdout).toContain('Lambda GetAccountSettings');
    expect(r.stdout).toContain('Scheduler GetScheduleGroup');
  });

  it('reports from the built program as from the in-process one', async () => {
    // Prepare
    const cwd = await deployment({ tenants: [{ id: 'acme' }, { id: 'bruin', login: false }] });

    // Act
    const built = await runCli(
      ['doctor', '--json', '--dir', path.join(cwd, '.report-export'), '--lake', path.join(cwd, 'data-lake')],
      {
        cleanEnv: true,
      },
    );

    // Assess
    expect(built.code, built.stderr).toBe(1);
    expect(statuses(JSON.parse(built.stdout))).toContain('login.tenant bruin: fail');
    await rm(cwd, { recursive: true, force: true });
  });
});
