import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantsLogin } from '../../../lib/cli/commands/login/tenant-login';
import { tenantsStatus } from '../../../lib/cli/commands/tenants/status';
import type { IOStreams } from '../../../lib/cli/shared/io-streams';
import { runInProcess } from '../../support/cli-in-process';
import { runCli } from '../../support/cli-process';

const ADD = [
  'tenants',
  'add',
  'acme',
  '--name',
  'Acme Ltd',
  '--region',
  'uk',
  '--time-zone',
  'Europe/London',
  '--workspace',
  'ws-1',
  '--reports',
  'r-1=Lost calls,r-2',
  '--hour',
  '2',
  '--look-back',
  '1',
];

/** A run record of tenant `tenant` as Finalize writes it (the members status reads). */
function record(
  tenant: string,
  runId: string,
  startedAt: string,
  status: 'SUCCEEDED' | 'FAILED',
  newestDate: string,
) {
  return {
    runId,
    tenant,
    parentRunId: null,
    executionName: `${tenant}-${runId}`,
    status,
    mode: 'nightly',
    input: { tenant },
    dateFrom: newestDate,
    dateTo: newestDate,
    startedAt,
    finishedAt: startedAt,
    durationMs: 1000,
    jobs: [],
    jobCount: 1,
    failedJobs: status === 'FAILED' ? 1 : 0,
    heldPartitions: 0,
    rows: 10,
    partitions: 1,
    files: 2,
    bytes: 100,
    requests: 1,
    polls: 1,
    splits: 0,
    retries: 0,
    newestDate,
    continued: false,
    error: status === 'FAILED' ? 'LoginRequiredError' : null,
    cause: null,
  };
}

describe('report-export tenants (a local deployment)', () => {
  let cwd: string;
  const run = (argv: string[], options: { stdin?: string; tty?: boolean } = {}) =>
    runInProcess(argv, { cwd, ...options });

  beforeAll(async () => {
    cwd = await mkdtemp(path.join(tmpdir(), 'tenants-cli-'));
  });

  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it('adds a tenant into <workDir>/tenants/<id>.json, checked by the registry, and refuses the id again', async () => {
    // Act
    const added = await run(ADD);
    const again = await run(ADD);

    // Assess
    expect(added.stderr).toContain('tenants login acme');
    expect(added.code).toBe(0);
    const entry = JSON.parse(
      await readFile(path.join(cwd, '.report-export', 'tenants', 'acme.json'), 'utf8'),
    );
    expect(entry).toEqual({
      id: 'acme',
      name: 'Acme Ltd',
      region: 'uk',
      timeZone: 'Europe/London',
      workspaceId: 'ws-1',
      reports: [
        { id: 'r-1', name: 'Lost calls' },
        { id: 'r-2', name: 'r-2' },
      ],
      hour: 2,
      lookBackDays: 1,
      enabled: true,
    });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("'acme' is already in the registry");
  });

  it.each([
    [['--hour', '24'], '--hour', '24'],
    [['--time-zone', 'Mars/Olympus'], '--time-zone', 'Mars/Olympus'],
    [['--region', 'moon'], '--region', 'moon'],
    [['--look-back', 'two'], '--look-back', 'two'],
  ])('refuses %j naming the value and the flag, writing nothing', async (change, flag, value) => {
    // Prepare
    const argv = [...ADD];
    argv[2] = 'bad';
    argv[argv.indexOf(change[0] as string) + 1] = change[1] as string;

    // Act
    const r = await run(argv);

    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(value);
    expect(r.stderr).toContain(flag);
    await expect(stat(path.join(cwd, '.report-export', 'tenants', 'bad.json'))).rejects.toThrow();
  });

  it('refuses a malformed id and a missing member', async () => {
    const badId = await run(['tenants', 'add', 'Acme_1', '--name', 'x']);
    const missing = await run(['tenants', 'add', 'zed', '--name', 'Zed']);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain("'Acme_1'");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--region');
  });

  it('changes only the members given, and lists the tenants as a table and as JSON', async () => {
    // Act
    const set = await run(['tenants', 'set', 'acme', '--hour', '4', '--disabled']);
    const unknown = await run(['tenants', 'set', 'nope', '--hour', '4']);
    const table = await run(['tenants', 'list']);
    const json = await run(['tenants', 'list', '--json']);

    // Assess
    expect(set.code).toBe(0);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no tenant 'nope'");
    expect(unknown.stderr).toContain('its tenants: acme');
    expect(table.stdout).toMatch(/acme\s+Acme Ltd\s+uk\s+Europe\/London\s+04/);
    const [entry] = JSON.parse(json.stdout);
    expect(entry).toMatchObject({
      id: 'acme',
      hour: 4,
      enabled: false,
      lookBackDays: 1,
      workspaceId: 'ws-1',
    });
  });

  it('sets a country and the directories to export, names a bad country with its flag, and puts the defaults back', async () => {
    // Act
    const set = await run(['tenants', 'set', 'acme', '--country', 'ie', '--directories', 'd-1,d-2']);
    const named = JSON.parse((await run(['tenants', 'list', '--json'])).stdout)[0];
    const bad = await run(['tenants', 'set', 'acme', '--country', 'Ireland']);
    const back = await run(['tenants', 'set', 'acme', '--country', 'auto', '--directories', 'all']);
    const table = await run(['tenants', 'list']);
    const plain = JSON.parse((await run(['tenants', 'list', '--json'])).stdout)[0];

    // Assess
    expect(set.code, set.stderr).toBe(0);
    expect(named).toMatchObject({ country: 'IE', directories: ['d-1', 'd-2'] });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/country must be an ISO 3166 alpha-2 code.*\(fix --country\)/);
    expect(back.code, back.stderr).toBe(0);
    expect(plain).not.toHaveProperty('country');
    expect(plain).not.toHaveProperty('directories');
    expect(table.stdout).toMatch(/\bauto\s+all\b/);
  });

  it("shows each tenant's last run, newest day and login from its own run records and secret", async () => {
    // Prepare: acme's runs (the newest failed) and another tenant's newer run, which is not acme's.
    const runs = (tenant: string, dt: string) =>
      path.join(cwd, 'data-lake', 'runs', `tenant=${tenant}`, `dt=${dt}`);
    const write = async (tenant: string, r: ReturnType<typeof record>) => {
      const dir = runs(tenant, r.startedAt.slice(0, 10));
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, `${r.runId}.json`), JSON.stringify(r));
    };
    await write('acme', record('acme', 'a1', '2026-11-20T02:05:00.000Z', 'SUCCEEDED', '2026-11-19'));
    await write('acme', record('acme', 'a2', '2026-11-21T02:05:00.000Z', 'FAILED', '2026-11-20'));
    await write('other', record('other', 'o1', '2026-11-22T02:05:00.000Z', 'SUCCEEDED', '2026-11-21'));
    await mkdir(path.join(cwd, '.report-export', 'secrets'), { recursive: true });
    await writeFile(
      path.join(cwd, '.report-export', 'secrets', 'acme.json'),
      JSON.stringify({
        service: {
          refreshToken: 'rt',
          accessToken: 'at',
          accessTokenExpiresAt: Date.parse('2026-11-21T00:00:00Z'),
        },
      }),
      { mode: 0o600 },
    );

    // Act
    const r = await run(['tenants', 'status', 'acme', '--json']);
    const runsOfAcme = await run(['runs', '--tenant', 'acme', '--json']);
    const runsOfAll = await run(['runs', '--json']);
    const queried = await run(['query', '--json', 'SELECT "runId", tenant, dt FROM runs ORDER BY "runId"']);
    const noTables = await run(['query', '--tenant', 'acme', 'SELECT count(*) FROM runs']);
    const runsOfTypo = await run(['runs', '--tenant', 'acmee']);
    const statusOfTypo = await run(['tenants', 'status', 'acmee']);

    // Assess
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        tenant: 'acme',
        enabled: false,
        lastRun: {
          runId: 'a2',
          status: 'FAILED',
          startedAt: '2026-11-21T02:05:00.000Z',
          error: 'LoginRequiredError',
        },
        newestDay: '2026-11-19',
        heldPartitions: 0,
        // Its newest day is weeks old (status judges it: test/cli/status).
        verdict: 'error',
        login: 'stored',
        loginExpires: '2026-11-21T00:00:00.000Z',
        schedule: 'n/a',
      },
    ]);
    expect(JSON.parse(runsOfAcme.stdout).map((x: { runId: string }) => x.runId)).toEqual(['a2', 'a1']);
    expect(JSON.parse(runsOfAll.stdout).map((x: { runId: string }) => x.runId)).toEqual(['o1', 'a2', 'a1']);
    expect(JSON.parse(queried.stdout)).toEqual([
      { runId: 'a1', tenant: 'acme', dt: '2026-11-20' },
      { runId: 'a2', tenant: 'acme', dt: '2026-11-21' },
      { runId: 'o1', tenant: 'other', dt: '2026-11-22' },
    ]);
    expect(noTables.code).toBe(2);
    expect(noTables.stderr).toContain('--tenant');
    // A tenant the lake or the registry does not hold is exit 2 naming the ones it does.
    expect(runsOfTypo.code).toBe(2);
    expect(runsOfTypo.stderr).toContain("--tenant 'acmee' is not a tenant of the lake");
    expect(runsOfTypo.stderr).toContain('its tenants: acme, other');
    expect(statusOfTypo.code).toBe(2);
    expect(statusOfTypo.stderr).toContain("no tenant 'acmee' in the local deployment");
    expect(statusOfTypo.stderr).toContain('its tenants: acme');
  });

  it('lists the tenants from the built program as from the in-process one', async () => {
    // Act
    const built = await runCli([
      'tenants',
      'list',
      '--json',
      '--dir',
      path.join(cwd, '.report-export'),
      '--lake',
      path.join(cwd, 'data-lake'),
    ]);
    const inProcess = await run(['tenants', 'list', '--json']);

    // Assess
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toBe(inProcess.stdout);
    expect(JSON.parse(built.stdout)).toHaveLength(1);
  });

  it('removes the entry and the secret, keeps the data unless --delete-data, which needs --yes without a terminal', async () => {
    // Prepare
    const partition = path.join(
      cwd,
      'data-lake',
      'calls',
      'format=csv',
      'tenant=acme',
      'report_id=r-1',
      'dt=2026-11-19',
    );
    await mkdir(partition, { recursive: true });
    await writeFile(path.join(partition, 'part-0.csv'), 'a\n');
    const others = path.join(
      cwd,
      'data-lake',
      'calls',
      'format=csv',
      'tenant=acme-2',
      'report_id=r-1',
      'dt=2026-11-19',
    );
    await mkdir(others, { recursive: true });
    await writeFile(path.join(others, 'part-0.csv'), 'b\n');

    // Act
    const unconfirmed = await run(['tenants', 'remove', 'acme', '--delete-data']);
    const removed = await run(['tenants', 'remove', 'acme', '--delete-data', '--yes', '--json']);
    const again = await run(['tenants', 'remove', 'acme']);

    // Assess
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    await expect(stat(path.join(cwd, '.report-export', 'tenants', 'acme.json'))).rejects.toThrow();
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({
      tenant: 'acme',
      registryEntry: true,
      data: { objects: 3 },
    });
    await expect(stat(path.join(cwd, '.report-export', 'secrets', 'acme.json'))).rejects.toThrow();
    await expect(stat(path.join(partition, 'part-0.csv'))).rejects.toThrow();
    expect(await readFile(path.join(others, 'part-0.csv'), 'utf8')).toBe('b\n');
    expect(again.code).toBe(2);
  });
});

describe('report-export tenants login (a local deployment)', () => {
  let cwd: string;

  beforeAll(async () => {
    cwd = await mkdtemp(path.join(tmpdir(), 'tenants-login-'));
  });

  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it("stores the sign-in in that tenant's secret <dir>/secrets/<id>.json, on the tenant's region", async () => {
    // Prepare: the tenant, a browser that lands on the loopback redirect with a code, and the
    // authorization server's token answer.
    expect((await runInProcess(ADD, { cwd })).code).toBe(0);
    let stderr = '';
    const io: IOStreams = {
      stdin: Readable.from([]),
      stdout: { write: () => true },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: { REPORT_EXPORT_CLIENT_SECRET: 'client-secret' },
      cwd,
    };
    const tokenRequests: string[] = [];
    const landed: Promise<Response>[] = [];
    const deps = {
      onAuthorizationUrl: (url: string) => {
        const state = new URL(url).searchParams.get('state') ?? '';
        const origin = /waiting on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];
        landed.push(fetch(`${origin}/callback?code=c-1&state=${state}`));
      },
      fetch: async (input: string | URL | Request) => {
        tokenRequests.push(String(input));
        return Response.json({
          access_token: 'at',
          refresh_token: 'rt',
          expires_in: 3600,
          token_type: 'Bearer',
        });
      },
    };

    // Act
    const code = await tenantsLogin(
      ['acme', '--client-id', 'app', '--redirect-uri', 'http://127.0.0.1:0/callback', '--no-open'],
      io,
      deps,
    );

    // Assess
    expect(code, stderr).toBe(0);
    expect((await landed[0])?.status).toBe(200);
    expect(tokenRequests).toEqual([expect.stringContaining('https://')]);
    const file = path.join(cwd, '.report-export', 'secrets', 'acme.json');
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
    const { service } = JSON.parse(await readFile(file, 'utf8'));
    expect(service).toMatchObject({
      clientId: 'app',
      refreshToken: 'rt',
      accessToken: 'at',
      baseUrl: expect.stringContaining('uk'),
    });
  });

  it.each([
    [
      'refreshes',
      { access_token: 'at-2', refresh_token: 'rt-2', expires_in: 3600, token_type: 'Bearer' },
      200,
      'rt-2',
    ],
    ['failed: ', { error: 'invalid_grant' }, 400, 'rt'],
  ])(
    'says the login %s with --check-login, storing a rotated refresh token',
    async (login, answer, status, stored) => {
      // Prepare: the login the previous test stored (refresh token rt, an access token still valid).
      const file = path.join(cwd, '.report-export', 'secrets', 'acme.json');
      const before = JSON.parse(await readFile(file, 'utf8'));
      await writeFile(file, JSON.stringify({ service: { ...before.service, refreshToken: 'rt' } }), {
        mode: 0o600,
      });
      let refreshes = 0;
      const io: IOStreams = {
        stdin: Readable.from([]),
        stdout: { write: (chunk: string) => (out += chunk) },
        stderr: { write: () => true },
        env: {},
        cwd,
      };
      let out = '';

      // Act
      const code = await tenantsStatus(['acme', '--check-login', '--json'], io, {
        fetch: async () => {
          refreshes++;
          return Response.json(answer, { status });
        },
      });

      // Assess: the stored access token was still valid, and the check refreshed all the same.
      expect(code).toBe(0);
      expect(refreshes).toBe(1);
      expect(JSON.parse(out)[0].login).toMatch(new RegExp(`^${login}`));
      expect(JSON.parse(await readFile(file, 'utf8')).service.refreshToken).toBe(stored);
    },
  );

  it('says the local service is not running, and why, when the login is the local service of an npm start that ended', async () => {
    // Prepare: a login of a local service on a loopback port nothing listens on any more.
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const file = path.join(cwd, '.report-export', 'secrets', 'acme.json');
    const before = JSON.parse(await readFile(file, 'utf8'));
    const gone = `http://127.0.0.1:${port}`;
    await writeFile(
      file,
      JSON.stringify({ service: { ...before.service, authUrl: gone, baseUrl: `${gone}/api` } }),
      { mode: 0o600 },
    );

    // Act
    const r = await runInProcess(['tenants', 'status', 'acme', '--check-login', '--json'], { cwd });

    // Assess
    expect(r.code, r.stderr).toBe(0);
    const [status] = JSON.parse(r.stdout);
    expect(status.login).toMatch(/^failed: /);
    expect(status.login).toContain(`its service ${gone} is not running`);
    expect(status.login).toContain('only while npm start runs');
  });

  it('refuses a tenant that is not registered', async () => {
    const r = await runInProcess(['tenants', 'login', 'nobody', '--client-id', 'app'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no tenant 'nobody'");
  });
});
