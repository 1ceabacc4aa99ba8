import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalDirectoryStore, LocalFileSecretStore } from '../../../lib/stores';
import type { AdapterOptions } from '../../../lib/stores/aws';
import { WORKFLOW_ERROR_CODES } from '../../../lib/workflow/errors';
import { createFinalizeHandler, createPlanHandler } from '../../../lib/workflow/handlers';
import { createWorkflowRuntime } from '../../../lib/workflow/runtime';
import type { WorkflowLogger } from '../../../lib/workflow/runtime-types';
import type { ServiceSecret } from '../../../lib/workflow/service-secret';
import { TenantRegistry } from '../../../lib/workflow/tenant-registry';
import { MAX_CACHED_TENANTS } from '../../../lib/workflow/tenant-runtimes';
import { tenantEntry } from './tenant-fixtures';

let dir: string;
let registry: TenantRegistry;
let lines: { level: string; message: string; data?: Record<string, unknown> }[];
const logger: WorkflowLogger = {
  info: (message, data) => lines.push({ level: 'info', message, ...(data ? { data } : {}) }),
  warn: (message, data) => lines.push({ level: 'warn', message, ...(data ? { data } : {}) }),
  error: (message, data) => lines.push({ level: 'error', message, ...(data ? { data } : {}) }),
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenant-runtime-'));
  registry = new TenantRegistry({ store: new LocalDirectoryStore(join(dir, 'tenants')), prefix: '' });
  lines = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const uri = (...parts: string[]) => pathToFileURL(join(dir, ...parts)).href;

/** A multi-tenant deployment's environment on local stores under `dir`. */
function multiEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    OBJECT_STORE_URI: uri('lake'),
    LEASE_STORE_URI: uri('leases'),
    TENANT_REGISTRY_URI: uri('tenants'),
    TENANT_SECRET_URI: `${uri('secrets')}/{tenant}.json`,
    ...extra,
  };
}

/** A single-tenant deployment's environment on local stores under `dir`. */
function singleEnv(): Record<string, string> {
  return {
    TIME_ZONE: 'Europe/London',
    WORKSPACE_ID: 'ws',
    REPORTS: JSON.stringify([{ id: 'r1', name: 'Calls' }]),
    OBJECT_STORE_URI: uri('lake'),
    LEASE_STORE_URI: uri('leases'),
    SECRET_URI: uri('secret.json'),
  };
}

/** A tenant's login in its secret file; `refreshToken` 'revoked' is refused by the token endpoint. */
async function login(tenant: string, refreshToken: string): Promise<void> {
  const secret: ServiceSecret = {
    authUrl: `http://auth.invalid/${tenant}`,
    baseUrl: 'http://api.invalid',
    clientId: 'client',
    clientSecret: 'client-secret',
    redirectUri: 'http://127.0.0.1:8000/',
    refreshToken,
    accessTokenExpiresAt: 0,
  };
  await new LocalFileSecretStore(join(dir, 'secrets', `${tenant}.json`)).put('service', secret);
}

/** The token endpoint: a revoked refresh token is refused (invalid_grant), any other redeemed. */
const fetch = async (_url: string | URL, init?: RequestInit): Promise<Response> => {
  const refreshToken = new URLSearchParams(String(init?.body)).get('refresh_token');
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  if (refreshToken === 'revoked') return json(400, { error: 'invalid_grant' });
  return json(200, { access_token: `access-for-${refreshToken}`, token_type: 'bearer', expires_in: 3600 });
};

describe('createWorkflowRuntime in a multi-tenant deployment', () => {
  it.each(['TIME_ZONE', 'WORKSPACE_ID', 'REPORTS', 'SECRET_URI'])(
    'refuses %s, naming it, since each tenant has its own',
    (name) => {
      expect(() => createWorkflowRuntime(multiEnv({ [name]: 'x' }), { logger })).toThrow(
        new RegExp(`^Invalid workflow settings: ${name} is set, but a multi-tenant deployment`),
      );
    },
  );

  it('requires TENANT_SECRET_URI, with {tenant} in it', () => {
    const { TENANT_SECRET_URI: _, ...without } = multiEnv();
    expect(() => createWorkflowRuntime(without, { logger })).toThrow(
      'Invalid workflow settings: TENANT_SECRET_URI is required',
    );
    expect(() =>
      createWorkflowRuntime(multiEnv({ TENANT_SECRET_URI: uri('secret.json') }), { logger }),
    ).toThrow(/TENANT_SECRET_URI .* has no \{tenant\}/);
  });

  it("gives each tenant its registry entry's settings and the deployment's limits", async () => {
    // Prepare
    await registry.put(tenantEntry('acme', { timeZone: 'Australia/Sydney', lookBackDays: 3 }));
    const runtime = createWorkflowRuntime(multiEnv({ MAX_WINDOW_DAYS: '5' }), { logger });
    // Act
    const t = await runtime.forTenant('acme');
    // Assess
    expect(t.tenant).toBe('acme');
    expect(t.settings).toMatchObject({
      timeZone: 'Australia/Sydney',
      workspaceId: 'ws-acme',
      reports: [{ id: 'r1', name: 'Calls' }],
      lookBackDays: 3,
      maxWindowDays: 5,
    });
    expect(runtime.multiTenant).toBe(true);
  });

  it("names the tenant on every log line of its runtime, whatever the line's data says", async () => {
    // Prepare
    await registry.put(tenantEntry('acme'));
    const runtime = createWorkflowRuntime(multiEnv(), { logger });
    const t = await runtime.forTenant('acme');
    // Act
    t.logger.info('exported', { rows: 3 });
    t.logger.error('failed', { tenant: 'bruin' });
    // Assess
    expect(lines.map((l) => l.data?.tenant)).toEqual(['acme', 'acme']);
  });

  it('reads an entry again only after 60 s', async () => {
    // Prepare
    let now = 0;
    await registry.put(tenantEntry('acme'));
    const runtime = createWorkflowRuntime(multiEnv(), { logger, now: () => now });
    await runtime.forTenant('acme');
    await registry.put(tenantEntry('acme', { timeZone: 'America/New_York' }));
    // Act
    now = 59_999;
    const cached = await runtime.forTenant('acme');
    now = 60_000;
    const reread = await runtime.forTenant('acme');
    // Assess
    expect(cached.settings.timeZone).toBe('Europe/London');
    expect(reread.settings.timeZone).toBe('America/New_York');
  });
});

describe('one tenant failing', () => {
  it("never reaches another tenant's tokens, entry or runtime", async () => {
    // Prepare: acme's grant is revoked, beta's is fine; a third name is not registered.
    await registry.put(tenantEntry('acme'));
    await registry.put(tenantEntry('beta'));
    await login('acme', 'revoked');
    await login('beta', 'beta-refresh');
    const runtime = createWorkflowRuntime(multiEnv(), { logger, fetch });
    // Act: all at once, as concurrent tasks of three executions in one process.
    const [acme, beta, ghost] = await Promise.allSettled([
      runtime.forTenant('acme').then((t) => t.tokens.getAccessToken()),
      runtime.forTenant('beta').then((t) => t.tokens.getAccessToken()),
      runtime.forTenant('ghost'),
    ]);
    const betaAgain = await (await runtime.forTenant('beta')).tokens.getAccessToken();
    // Assess: acme fails with the login-required error naming its own secret; beta is untouched.
    expect(acme.status === 'rejected' && acme.reason).toMatchObject({ name: 'LoginRequiredError' });
    expect(beta).toEqual({ status: 'fulfilled', value: 'access-for-beta-refresh' });
    expect(ghost.status === 'rejected' && ghost.reason).toMatchObject({
      code: WORKFLOW_ERROR_CODES.invalidInput,
      message: expect.stringMatching(/^tenant 'ghost' is not in the registry/),
    });
    expect(betaAgain).toBe('access-for-beta-refresh');
    expect((await runtime.forTenant('acme')).tokens).not.toBe((await runtime.forTenant('beta')).tokens);
    // Each secret's refresh took its own lease, under its tenant's prefix.
    expect(await readdir(join(dir, 'leases'))).toEqual(
      expect.arrayContaining(['tenant=acme', 'tenant=beta']),
    );
  });

  it("keeps a tenant's failed registry read from being remembered", async () => {
    // Prepare
    const runtime = createWorkflowRuntime(multiEnv(), { logger });
    await expect(runtime.forTenant('late')).rejects.toThrow(/not in the registry/);
    // Act
    await registry.put(tenantEntry('late'));
    // Assess
    expect((await runtime.forTenant('late')).tenant).toBe('late');
  });

  it('builds each tenant its stores once, through the tenant session of TENANT_ROLE_ARN', async () => {
    // Prepare
    await registry.put(tenantEntry('acme'));
    await registry.put(tenantEntry('beta'));
    const sessions: string[] = [];
    const tenantAdapterOptions = (tenant: string, roleArn: string): AdapterOptions => {
      sessions.push(`${tenant} ${roleArn}`);
      return {};
    };
    const roleArn = 'arn:aws:iam::123456789012:role/TenantAccess';
    const runtime = createWorkflowRuntime(multiEnv({ TENANT_ROLE_ARN: roleArn }), {
      logger,
      tenantAdapterOptions,
    });
    // Act
    for (const tenant of ['acme', 'beta', 'acme', 'beta']) await runtime.forTenant(tenant);
    // Assess
    expect(sessions).toEqual([`acme ${roleArn}`, `beta ${roleArn}`]);
  });
});

describe('a tenant session in AWS (TENANT_ROLE_ARN)', () => {
  const s3 = mockClient(S3Client);
  afterEach(() => {
    s3.reset();
  });

  it("reads a 403 on the tenant's own entry as an unregistered tenant: S3 refuses a missing key to a session without ListBucket", async () => {
    // Prepare: the registry in S3; the session may read only its own entry, which is missing.
    s3.on(GetObjectCommand, { Key: '_tenants/acme.json' }).resolves({
      Body: Readable.from([Buffer.from(JSON.stringify(tenantEntry('acme')))]) as never,
    });
    s3.on(GetObjectCommand, { Key: '_tenants/ghost.json' }).rejects(
      Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }),
    );
    const client = new S3Client({ region: 'eu-west-2' });
    const env = multiEnv({
      TENANT_REGISTRY_URI: 's3://lake-bucket/_tenants',
      TENANT_ROLE_ARN: 'arn:aws:iam::123456789012:role/TenantAccess',
    });
    const runtime = createWorkflowRuntime(env, {
      logger,
      tenantAdapterOptions: () => ({ s3: () => client }),
    });
    // Act
    const acme = await runtime.forTenant('acme');
    const ghost = runtime.forTenant('ghost');
    // Assess
    expect(acme.settings.workspaceId).toBe('ws-acme');
    await expect(ghost).rejects.toMatchObject({
      name: 'InvalidInputError',
      message: expect.stringMatching(/^tenant 'ghost' is not in the registry/),
    });
  });
});

describe('the tenants a process keeps', () => {
  it('drops the least recently used past MAX_CACHED_TENANTS, and builds it again when it comes back', async () => {
    // Prepare: one more tenant than the process keeps; acme used again before the others.
    const ids = Array.from({ length: MAX_CACHED_TENANTS }, (_, i) => `t${i}`);
    for (const id of [...ids, 'acme']) await registry.put(tenantEntry(id));
    const built: string[] = [];
    const runtime = createWorkflowRuntime(multiEnv({ TENANT_ROLE_ARN: 'arn:aws:iam::1:role/T' }), {
      logger,
      tenantAdapterOptions: (tenant) => {
        built.push(tenant);
        return {};
      },
    });
    await runtime.forTenant('acme');
    await runtime.forTenant('t0');
    await runtime.forTenant('acme');
    // Act
    for (const id of ids.slice(1)) await runtime.forTenant(id);
    await runtime.forTenant('acme');
    await runtime.forTenant('t0');
    // Assess: t0 was the least recently used when the cache overflowed; acme was not.
    expect(built.filter((t) => t === 't0')).toHaveLength(2);
    expect(built.filter((t) => t === 'acme')).toHaveLength(1);
  });
});

describe('Plan in a multi-tenant deployment', () => {
  const plan = (input: unknown, env = multiEnv()) =>
    createPlanHandler(createWorkflowRuntime(env, { logger }))({ input, executionName: 'run-1' });

  it('refuses an input without a tenant, naming it', async () => {
    await expect(plan({ date: '2026-11-18' })).rejects.toMatchObject({
      name: 'InvalidInputError',
      message: expect.stringMatching(/^tenant is required/),
    });
  });

  it('fails a disabled tenant with a terminal error naming it', async () => {
    await registry.put(tenantEntry('acme', { enabled: false }));
    await expect(plan({ tenant: 'acme', date: '2026-11-18' })).rejects.toMatchObject({
      name: 'TenantDisabledError',
      code: WORKFLOW_ERROR_CODES.tenantDisabled,
      message: expect.stringMatching(/^tenant 'acme' is disabled/),
    });
    expect(lines.at(-1)?.data).toMatchObject({ tenant: 'acme', error: 'TenantDisabledError' });
  });

  it('fails an entry that is invalid with TenantConfigError naming the tenant and the member', async () => {
    await new LocalDirectoryStore(join(dir, 'tenants')).put(
      'acme.json',
      JSON.stringify({ ...tenantEntry('acme'), hour: 25 }),
    );
    await expect(plan({ tenant: 'acme', date: '2026-11-18' })).rejects.toMatchObject({
      name: 'TenantConfigError',
      message: expect.stringMatching(/^Invalid tenant entry 'acme': hour .*\(got 25\)/),
    });
  });

  it.each([
    // One instant, three zones: each tenant's own yesterday.
    ['Europe/London', '2026-11-21T03:00:00Z', '2026-11-20', '2026-11-20T00:00:00+00:00'],
    ['America/New_York', '2026-11-21T03:00:00Z', '2026-11-19', '2026-11-19T00:00:00-05:00'],
    ['Australia/Sydney', '2026-11-21T03:00:00Z', '2026-11-20', '2026-11-20T00:00:00+11:00'],
    ['Australia/Sydney', '2026-11-20T14:00:00Z', '2026-11-20', '2026-11-20T00:00:00+11:00'],
    ['Europe/London', '2026-11-20T14:00:00Z', '2026-11-19', '2026-11-19T00:00:00+00:00'],
  ])(
    'plans a tenant in %s its own yesterday of the nightly scheduledTime %s',
    async (timeZone, scheduledTime, yesterday, from) => {
      // Prepare
      await registry.put(tenantEntry('acme', { timeZone }));
      // Act
      const planned = await plan({ tenant: 'acme', scheduledTime });
      // Assess: the plan and every job name the tenant; the window is its zone's day.
      expect(planned).toMatchObject({ tenant: 'acme', timeZone, dates: { from: yesterday, to: yesterday } });
      expect(planned.jobs).toEqual([expect.objectContaining({ tenant: 'acme', reportId: 'r1' })]);
      expect(planned.jobs[0]?.window.from).toBe(from);
      expect(lines.find((l) => l.message === 'planned')?.data).toMatchObject({ tenant: 'acme' });
    },
  );

  it("re-exports the tenant's look-back and continues a long backfill for the same tenant", async () => {
    // Prepare
    await registry.put(tenantEntry('acme', { lookBackDays: 2 }));
    // Act
    const nightly = await plan({ tenant: 'acme', scheduledTime: '2026-11-21T02:00:00Z' });
    const long = await plan(
      { tenant: 'acme', from: '2024-01-01', to: '2026-01-01' },
      multiEnv({ MAX_JOBS_PER_EXECUTION: '2' }),
    );
    // Assess
    expect(nightly.dates).toEqual({ from: '2026-11-18', to: '2026-11-20' });
    expect(long.continuation).toMatchObject({ tenant: 'acme', parentRunId: 'run-1' });
  });
});

describe('a runtime spread with replaced parts (the CLI run replaces the token source and client)', () => {
  it("gives the tasks of a single-tenant deployment the replacements, not the runtime's own", async () => {
    // Prepare
    const runtime = createWorkflowRuntime(singleEnv(), { logger });
    const client = async () => ({}) as never;
    const replaced = { ...runtime, client };
    // Act
    const t = await replaced.forTenant(undefined);
    // Assess
    expect(t).toBe(replaced);
    expect(t.client).toBe(client);
  });

  it('spreads a multi-tenant runtime, whose own settings and tokens are refused when read', () => {
    // Prepare
    const runtime = createWorkflowRuntime(multiEnv(), { logger });
    // Act
    const spread = { ...runtime };
    // Assess
    expect(spread.objects).toBe(runtime.objects);
    expect(() => runtime.settings).toThrow(/use forTenant\(tenant\)/);
    expect(() => runtime.tokens).toThrow(/use forTenant\(tenant\)/);
  });
});

describe('Plan in a single-tenant deployment', () => {
  it('refuses a tenant in the input, naming it', async () => {
    // Prepare
    const runtime = createWorkflowRuntime(singleEnv(), { logger });
    // Act
    const planned = createPlanHandler(runtime)({
      input: { tenant: 'acme', date: '2026-11-18' },
      executionName: 'x',
    });
    const alone = await createPlanHandler(runtime)({ input: { date: '2026-11-18' }, executionName: 'x' });
    // Assess
    await expect(planned).rejects.toMatchObject({
      name: 'InvalidInputError',
      message: expect.stringMatching(/^tenant \('acme'\) is not taken: this deployment serves one tenant/),
    });
    expect(alone.tenant).toBeNull();
    expect(alone.jobs[0]).not.toHaveProperty('tenant');
  });
});

describe('Finalize and RecordFailure of a tenant', () => {
  const metricsOf = () => {
    const added: string[] = [];
    return {
      added,
      sink: () => ({
        add: (name: string) => added.push(name),
        addProperty: (name: string, value: string) => added.push(`${name}=${value}`),
        flush: () => {},
      }),
    };
  };
  const startedAt = '2026-11-21T02:00:00.000Z';

  it("writes the record under the tenant's runs/ and names the tenant in the output and the metrics", async () => {
    // Prepare
    await registry.put(tenantEntry('acme'));
    const metrics = metricsOf();
    const finalize = createFinalizeHandler(createWorkflowRuntime(multiEnv(), { logger }), metrics.sink);
    // Act
    const out = await finalize({
      input: { tenant: 'acme', date: '2026-11-20' },
      executionName: 'run-1',
      startedAt,
      plan: {
        runId: 'run-1',
        tenant: 'acme',
        mode: 'date',
        timeZone: 'Europe/London',
        dates: { from: '2026-11-20', to: '2026-11-20' },
        jobCount: 0,
        hasContinuation: false,
      },
      results: [],
    });
    // Assess
    expect(out).toMatchObject({ tenant: 'acme', runRecordKey: 'runs/tenant=acme/dt=2026-11-21/run-1.json' });
    const record = JSON.parse(await readFile(join(dir, 'lake', out.runRecordKey), 'utf8'));
    expect(record).toMatchObject({ runId: 'run-1', tenant: 'acme' });
    expect(metrics.added[0]).toBe('tenant=acme');
    expect(lines.find((l) => l.message === 'run finalized')?.data).toMatchObject({ tenant: 'acme' });
  });

  it.each([
    ['an invalid input naming a registered tenant', { tenant: 'acme', date: '2026-02-30' }, 'acme'],
    ['an input naming an unregistered tenant', { tenant: 'ghost', date: '2026-11-20' }, null],
    ['an input whose tenant is not an id', { tenant: 'Not An Id', date: '2026-11-20' }, null],
  ])('records the failure of %s under that tenant, if any', async (_, input, tenant) => {
    // Prepare: Plan failed, so the plan is empty.
    await registry.put(tenantEntry('acme'));
    const recordFailure = createFinalizeHandler(
      createWorkflowRuntime(multiEnv(), { logger }),
      metricsOf().sink,
    );
    // Act
    const out = await recordFailure({
      input,
      executionName: 'run-2',
      startedAt,
      plan: {} as never,
      failure: { Error: 'InvalidInputError', Cause: 'bad' },
    });
    // Assess
    const where = tenant === null ? '' : `tenant=${tenant}/`;
    expect(out).toMatchObject({ tenant, runRecordKey: `runs/${where}dt=2026-11-21/run-2.failure.json` });
    const record = JSON.parse(await readFile(join(dir, 'lake', out.runRecordKey), 'utf8'));
    expect(record.tenant).toBe(tenant ?? undefined);
  });
});
