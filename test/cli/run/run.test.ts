import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../../lib/simulator';
import { startLocalS3 } from '../../integration/stores/local-s3';
import { runInProcess } from '../../support/cli-in-process';
import { type LoginDir, makeLoginDir, writeLoginSecret } from '../login/login-secret';

/**
 * The program's `main` in this process (test/support/cli-in-process.ts), from a directory
 * of its own: what the built program prints and exits with, without a process per test.
 */
describe('report-export run', () => {
  let sim: RunningSimulator;
  let s3: Awaited<ReturnType<typeof startLocalS3>>;
  let login: LoginDir | undefined;
  let common: string[];
  let work: string;

  beforeAll(async () => {
    sim = await startSimulator({ autoApprove: true, reportLatencyMs: 50, rowsPerDay: 100 });
    s3 = await startLocalS3('run-lake');
    login = await makeLoginDir(sim, 'run-cli-');
    common = [...login.flags, '--time-zone', sim.timeZoneId, '--wait-ms', '50'];
    work = await mkdtemp(path.join(tmpdir(), 'run-cli-cwd-'));
  });

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  afterAll(async () => {
    await s3?.close();
    await sim?.close();
    await login?.remove();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  const cli = (argv: string[], env: Record<string, string> = {}) =>
    runInProcess(argv, { env, cleanEnv: true, cwd: work });

  it('publishes the Iceberg table and the CSV into S3 when --out is an s3:// URI and the endpoint is configured', async () => {
    // Prepare: the AWS SDK takes credentials and region from the process's own environment,
    // not from the command's: they are set there too, for this test only.
    const aws = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' };
    for (const [name, value] of Object.entries(aws)) vi.stubEnv(name, value);
    for (const name of ['AWS_PROFILE', 'AWS_SESSION_TOKEN']) vi.stubEnv(name, undefined);

    // Act
    const r = await cli(
      [
        'run',
        '--date',
        '2026-03-10',
        '--report',
        'Lost calls',
        '--out',
        's3://run-lake/exports',
        ...common,
        '--json',
      ],
      { REPORT_EXPORT_S3_ENDPOINT: s3.endpoint, ...aws },
    );

    // Assess
    expect(r.code, r.stderr).toBe(0);
    const line = JSON.parse(r.stdout) as { status: string; jobs: number; partitions: number };
    expect(line).toMatchObject({ status: 'SUCCEEDED', jobs: 1, partitions: 1 });
    const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: 'run-lake', Prefix: 'exports/' }));
    const keys = (listed.Contents ?? []).map((o) => o.Key ?? '');
    // The Parquet is the Iceberg table's (the file catalog beside the data), the CSV the Hive layout.
    expect(
      keys.filter((k) => /^exports\/tables\/calls\/data\/.*dt=2026-03-10\/[^/]+\.parquet$/.test(k)),
    ).toHaveLength(1);
    expect(keys).toContain('exports/tables/calls/metadata/v2.metadata.json');
    expect(keys.filter((k) => /format=csv\/.*dt=2026-03-10\/part-\d+\.csv$/.test(k))).toHaveLength(1);
  });

  it('publishes the Hive-layout Parquet beside the CSV, and no table, with --catalog hive', async () => {
    // Prepare
    const out = await mkdtemp(path.join(tmpdir(), 'run-cli-hive-'));

    // Act
    const r = await cli([
      'run',
      '--date',
      '2026-03-10',
      '--report',
      'Lost calls',
      '--out',
      out,
      '--catalog',
      'hive',
      ...common,
      '--json',
    ]);

    // Assess
    expect(r.code, r.stderr).toBe(0);
    const files = (await readdir(out, { recursive: true })).map(String);
    expect(
      files.filter((f) => /^calls\/format=parquet\/.*dt=2026-03-10\/part-00000\.parquet$/.test(f)),
    ).toHaveLength(1);
    expect(files.filter((f) => f.startsWith('tables'))).toEqual([]);
  });

  /** `tenants add <id>` in the working directory's local deployment: the service's first tenant's workspace and zone. */
  const addTenant = (id: string) => {
    const lost = sim.tenants[0]?.reports.find((r) => r.name === 'Lost calls');
    return cli([
      'tenants',
      'add',
      id,
      '--name',
      `Tenant ${id}`,
      '--region',
      'local',
      '--time-zone',
      sim.timeZoneId,
      '--workspace',
      sim.workspaceId,
      '--reports',
      `${lost?.id}=${lost?.name}`,
      '--hour',
      '2',
      '--look-back',
      '0',
    ]);
  };

  it("writes the tenant's partitions, table rows and run record under tenant=<id>/ when given --tenant", async () => {
    // Prepare
    const out = await mkdtemp(path.join(tmpdir(), 'run-cli-tenant-'));
    expect((await addTenant('acme')).code).toBe(0);

    // Act
    const r = await cli([
      'run',
      '--date',
      '2026-03-10',
      '--report',
      'Lost calls',
      '--tenant',
      'acme',
      '--out',
      out,
      ...common,
      '--json',
    ]);
    const rows = await cli([
      'query',
      '--dir',
      out,
      '--tenant',
      'acme',
      '--json',
      'SELECT tenant, count(*) AS n FROM calls GROUP BY tenant',
    ]);
    const none = await cli([
      'query',
      '--dir',
      out,
      '--tenant',
      'other',
      '--json',
      'SELECT count(*) AS n FROM calls',
    ]);

    // Assess
    expect(r.code, r.stderr).toBe(0);
    const files = (await readdir(out, { recursive: true })).map(String);
    expect(
      files.filter((f) => /^calls\/format=csv\/tenant=acme\/.*dt=2026-03-10\/part-\d+\.csv$/.test(f)),
    ).toHaveLength(1);
    expect(
      files.filter((f) => /^tables\/calls\/data\/tenant=acme\/.*dt=2026-03-10\/[^/]+\.parquet$/.test(f)),
    ).toHaveLength(1);
    expect(files.filter((f) => /^runs\/tenant=acme\/dt=[^/]+\/[^/]+\.json$/.test(f))).toHaveLength(1);
    expect(rows.stderr).toBe('');
    expect(JSON.parse(rows.stdout)).toEqual([{ tenant: 'acme', n: expect.any(Number) }]);
    // A tenant the lake does not hold is named, with the ones it does, not answered with nothing.
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--tenant 'other' is not a tenant of the lake");
    expect(none.stderr).toContain('its tenants: acme');

    // Act: the tenant's data deleted (tenants remove --delete-data), the tables read again.
    const removed = await cli([
      'tenants',
      'remove',
      'acme',
      '--delete-data',
      '--yes',
      '--lake',
      out,
      '--json',
    ]);
    const after = await cli(['query', '--dir', out, '--json', 'SELECT count(*) AS n FROM calls']);
    const contactsAfter = await cli([
      'query',
      '--dir',
      out,
      '--json',
      'SELECT (SELECT count(*) FROM contacts) + (SELECT count(*) FROM contact_phones) AS n',
    ]);

    // Assess: its rows left the table by a commit (a reader of the table does not break), and
    // no key of it is left but the table's data files earlier snapshots still name (history,
    // until those snapshots expire and the orphan cleanup takes them).
    expect(removed.code, removed.stderr).toBe(0);
    // One commit per table that held its rows: calls, and its contacts (personal data) in both tables.
    expect(JSON.parse(removed.stdout).data).toMatchObject({ commits: 3 });
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual([{ n: 0 }]);
    expect(JSON.parse(contactsAfter.stdout)).toEqual([{ n: 0 }]);
    expect(
      (await readdir(out, { recursive: true }))
        .map(String)
        .filter(
          (f) =>
            f.includes('tenant=acme') &&
            !['calls', 'contacts', 'contact_phones'].some((t) =>
              f.startsWith(path.join('tables', t, 'data')),
            ),
        ),
    ).toEqual([]);
    await rm(out, { recursive: true, force: true });
  });

  it("runs a registered tenant on its entry's zone, workspace and reports and its stored login, and plans it with --dry-run", async () => {
    // Prepare: bruin registered (tenants add) with its login where tenants login stores it.
    const out = await mkdtemp(path.join(tmpdir(), 'run-cli-registered-'));
    expect((await addTenant('bruin')).code).toBe(0);
    await writeLoginSecret(sim, path.join(work, '.report-export', 'secrets', 'bruin.json'));
    const run = [
      'run',
      '--tenant',
      'bruin',
      '--date',
      '2026-03-10',
      '--out',
      out,
      '--wait-ms',
      '50',
      '--json',
    ];

    try {
      // Act: no --time-zone, --secret-file or --report: the tenant's own.
      const dryRun = await cli([...run, '--dry-run']);
      const r = await cli(run);
      const again = await cli([...run, '--dry-run']);
      const unknown = await cli(['run', '--tenant', 'brui', '--date', '2026-03-10', '--out', out]);

      // Assess: the plan names the tenant and its one report; after the run, the partition it replaces.
      expect(dryRun.code, dryRun.stderr).toBe(0);
      const plan = JSON.parse(dryRun.stdout);
      expect(plan.executions[0].input).toMatchObject({ tenant: 'bruin', date: '2026-03-10' });
      expect(plan.executions[0].jobs.map((j: { reportName: string }) => j.reportName)).toEqual([
        'Lost calls',
      ]);
      expect(plan.replaces).toEqual([]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'SUCCEEDED', jobs: 1 });
      const files = (await readdir(out, { recursive: true })).map(String);
      expect(files.filter((f) => /^runs\/tenant=bruin\/dt=[^/]+\/[^/]+\.json$/.test(f))).toHaveLength(1);
      expect(JSON.parse(again.stdout).replaces).toEqual([
        expect.objectContaining({ reportName: 'Lost calls', dt: '2026-03-10', rows: expect.any(Number) }),
      ]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("--tenant 'brui' is not a tenant of the local deployment");
      expect(unknown.stderr).toMatch(/its tenants: .*bruin/);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it.each([
    {
      args: ['--date', '2026-03-10', '--report', 'No such report'],
      message: "--report 'No such report' is not a report",
    },
    {
      args: ['--date', '2026-03-10', '--format', 'parquet'],
      message: 'choosing one format is not supported yet',
    },
    { args: ['--date', '2026-03-10', '--format', 'orc,csv'], message: "unknown format 'orc'" },
    {
      args: ['--date', '2026-13-01'],
      message: "--date must be a calendar date YYYY-MM-DD, got '2026-13-01'",
    },
    {
      args: ['--from', '2026-03-10', '--to', '2026-03-01'],
      message: '--to (2026-03-01) must not be before --from',
    },
    { args: ['--date', '2026-03-10', '--parquet-codec', 'LZ4'], message: '--parquet-codec must be one of' },
    {
      args: ['--date', '2026-03-10', '--catalog', 'delta'],
      message: "--catalog must be one of file, hive, glue:<database>, got 'delta'",
    },
    { args: ['--date', '2026-03-10', '--filter-id', 'x'], message: "--filter-id must be a GUID, got 'x'" },
    { args: ['--date', '2026-03-10', '--bogus'], message: "unknown option '--bogus'" },
  ])('exits 2 naming the flag when $args is given', async ({ args, message }) => {
    // Act
    const r = await cli(['run', ...args, ...common]);
    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('[CLI_USAGE]');
  });

  it('exits 2 asking for --time-zone and why when none is configured', async () => {
    // Act
    const r = await cli(['run', '--date', '2026-03-10', ...(login?.flags ?? [])]);

    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--time-zone is required');
    expect(r.stderr).toContain("days and partitions are local to the tenant's zone");
  });

  it('prints the cause on stderr and in --json when the run fails', async () => {
    // Prepare: a zone other than the tenant's, which the service refuses.
    const other = sim.timeZoneId === 'Pacific/Kiritimati' ? 'Pacific/Pago_Pago' : 'Pacific/Kiritimati';
    const out = await mkdtemp(path.join(tmpdir(), 'run-cli-cause-'));

    try {
      // Act
      const r = await cli([
        'run',
        '--date',
        '2026-03-10',
        '--report',
        'Lost calls',
        '--out',
        out,
        ...(login?.flags ?? []),
        '--wait-ms',
        '50',
        '--time-zone',
        other,
        '--json',
      ]);

      // Assess
      expect(r.code).toBe(1);
      const line = JSON.parse(r.stdout) as { status: string; cause: string | null };
      expect(line.status).toBe('FAILED');
      expect(line.cause).toEqual(expect.any(String));
      expect(line.cause?.length).toBeGreaterThan(0);
      expect(r.stderr).toContain(`cause ${line.cause}`);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it.each([
    { out: 'ftp://x', message: "--out ftp://x: unknown scheme 'ftp:'" },
    { out: 's3:/bucket', message: '--out s3:/bucket is not an s3://bucket[/prefix] URI' },
    { out: 's3://', message: '--out s3:// is not an s3://bucket[/prefix] URI' },
    { out: 'FILE', message: 'is not a directory' },
  ])('exits 2 naming --out before any work when --out is $out', async ({ out, message }) => {
    // Prepare: FILE stands for a regular file.
    const work = await mkdtemp(path.join(tmpdir(), 'run-cli-out-'));
    const file = path.join(work, 'lake.txt');
    await writeFile(file, 'not a directory');

    try {
      // Act
      const r = await cli(['run', '--date', '2026-03-10', '--out', out === 'FILE' ? file : out, ...common]);

      // Assess
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain('--out');
      expect(r.stderr).not.toContain('Reading the login');
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('prints the plan and the published partitions it would replace, and writes nothing, when given --dry-run', async () => {
    // Prepare: 2026-03-10 published by a run; 2026-03-09 never.
    const out = await mkdtemp(path.join(tmpdir(), 'run-cli-dry-'));
    const lake = async () => (await readdir(out, { recursive: true })).sort();
    try {
      const published = await cli([
        'run',
        '--date',
        '2026-03-10',
        '--report',
        'Lost calls',
        '--out',
        out,
        ...common,
      ]);
      expect(published.code, published.stderr).toBe(0);
      const before = await lake();
      const dry = [
        'run',
        '--from',
        '2026-03-09',
        '--to',
        '2026-03-10',
        '--report',
        'Lost calls',
        '--out',
        out,
      ];

      // Act
      const json = await cli([...dry, ...common, '--dry-run', '--json']);
      const text = await cli([...dry, ...common, '--dry-run']);

      // Assess
      expect(json.code, json.stderr).toBe(0);
      const doc = JSON.parse(json.stdout) as {
        executions: { input: unknown; jobs: { reportName: string; firstDate: string; lastDate: string }[] }[];
        replaces: { dt: string; reportName: string; dataset: string; rows: number }[];
      };
      expect(doc.executions).toHaveLength(1);
      expect(doc.executions[0]?.input).toEqual({
        from: '2026-03-09',
        to: '2026-03-10',
        reports: ['Lost calls'],
      });
      expect(doc.executions[0]?.jobs.map((j) => `${j.reportName} ${j.firstDate}..${j.lastDate}`)).toEqual([
        'Lost calls 2026-03-09..2026-03-10',
      ]);
      expect(doc.replaces.map((p) => `${p.dt} ${p.reportName} ${p.dataset}`)).toEqual([
        '2026-03-10 Lost calls calls',
      ]);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^Dry run: 1 execution\(s\), 1 job\(s\); nothing requested or written$/m);
      expect(text.stdout).toMatch(/^2026-03-10\s+Lost calls\s+calls\s+\d+$/m);
      expect(await lake()).toEqual(before);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it('prints help with examples and exits 0 when --help is given', async () => {
    // Act
    const r = await cli(['run', '--help']);
    // Assess
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--report <id|name> ...');
    expect(r.stdout).toContain('report-export run --time-zone Europe/London --date');
  });
});
