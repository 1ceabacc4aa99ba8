import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClient, refreshTokens } from '../../../api';
import { parseOrHelp, UsageError } from '../../../command-line';
import { describeStagingRecovery, sweepDeadStaging } from '../../../local';
import { readObject } from '../../../stores';
import type { MetricsSink, WorkflowLogger, WorkflowRuntime } from '../../../workflow';
import {
  jobsWithinBudget,
  SecretTokenSource,
  type TenantEntry,
  tenantRegistryFromUri,
} from '../../../workflow';
import { checkAws } from '../../aws/preflight';
import { bucketTargets, s3ClientFactory } from '../../aws/s3-client';
import {
  type AwsClients,
  leaseStoreUri,
  openSecretStore,
  refreshLeaseStore,
  resolveWorkspace,
  secretsManagerClientFor,
  secretTargets,
  secretUri,
  serviceClientFromSecret,
} from '../../aws/secret-access';
import { type ResolvedConfig, resolveConfig, secretLocation, serviceUrls } from '../../shared/config';
import { dryRunDocument, planChain, renderDryRun, replacedPartitions } from '../../shared/dry-run';
import { executionInputOf } from '../../shared/execution-input-options';
import { partialDayWarning, refuseFutureDates } from '../../shared/future-dates';
import type { IOStreams } from '../../shared/io-streams';
import { acquireOutDirLock } from '../../shared/out-dir-lock';
import { checkedOutUri } from '../../shared/out-location';
import { describeHeld, handlerWarning, outcomeWarnings, runExitCode } from '../../shared/run-outcome';
import { heldInRunRecords } from '../../shared/run-records';
import { checkedTenant } from '../../shared/tenant-check';
import { type TenantConfig, tenantConfig } from '../../shared/tenant-config';
import { colors, formatCount, formatDuration, progress, renderTable } from '../../shared/terminal';
import { RUN_COMMAND } from './spec';

/**
 * The tenant's time zone: days and partitions (dt) are local to it, and the service refuses
 * a report run in another zone. This machine's zone is no safe guess, so it must be given.
 */
function tenantTimeZone(config: ResolvedConfig): string {
  if (config.timeZone !== undefined) return config.timeZone.value;
  throw new UsageError(
    "--time-zone is required (or REPORT_EXPORT_TIME_ZONE, or timeZone in the config file): the tenant's IANA zone, e.g. --time-zone Europe/London; days and partitions are local to the tenant's zone, and the service refuses a run in any other",
  );
}

/**
 * The handlers' runtime for this machine: the Lambda's environment built from the
 * configuration, and, when the configuration names other service URLs than the secret,
 * a client and a token refresh on those.
 */
async function buildRuntime(
  config: ResolvedConfig,
  env: Record<string, string>,
  logger: WorkflowLogger,
  deps: AwsClients,
  io: Pick<IOStreams, 'env' | 'cwd'>,
  refreshLeaseKey: string | undefined,
): Promise<WorkflowRuntime> {
  const { createWorkflowRuntime } = await import('../../../workflow/runtime');
  const s3 = deps.s3 ?? s3ClientFactory(config, io.env);
  const fetchOption = deps.fetch === undefined ? {} : { fetch: deps.fetch };
  const runtime = createWorkflowRuntime(env, { logger, s3, ...fetchOption });
  const urls = serviceUrls(config);
  const location = secretLocation(config, io.cwd);
  const { store, name } = openSecretStore(location, deps);
  const tokens = new SecretTokenSource({
    secrets: store,
    secretName: name,
    // The secret's refresh lease, not LEASE_STORE_URI's (the partition leases, by default
    // under the working directory): every command refreshing this secret takes this one.
    leases: await refreshLeaseStore(config, io.env, { s3 }, location),
    ...(refreshLeaseKey === undefined ? {} : { leaseKey: refreshLeaseKey }),
    refresh: (client, refreshToken, signal) =>
      refreshTokens({ ...client, ...(urls.authUrl ? { authUrl: urls.authUrl.value } : {}) }, refreshToken, {
        transport: fetchOption,
        ...(signal ? { signal } : {}),
      }),
  });
  const clientOn = (workspaceId: string) => async () => {
    const secret = await tokens.read();
    return createClient({
      baseUrl: urls.baseUrl?.value ?? secret.baseUrl,
      auth: tokens,
      workspaceId,
      timeoutMs: 30_000,
      ...fetchOption,
    });
  };
  if (runtime.multiTenant) {
    // --tenant: the one tenant's runtime, with this run's login (its secret, refresh lease and URLs).
    return {
      ...runtime,
      async forTenant(tenant) {
        const own = await runtime.forTenant(tenant);
        return { ...own, tokens, client: clientOn(own.settings.workspaceId) };
      },
    };
  }
  return { ...runtime, tokens, client: clientOn(runtime.settings.workspaceId) };
}

/** The `held` partitions a log line's data carries (the shrink guard's warning), if any. */
function heldOf(data: Record<string, unknown> | undefined): readonly unknown[] | undefined {
  const held = data?.held;
  return Array.isArray(held) ? held : undefined;
}

/** The reports a run exports: those `--report` names (by id or name), else every one. */
function reportsRun(
  reports: readonly { id: string; name: string }[],
  wanted: readonly string[] | undefined,
): { id: string; name: string }[] {
  if (wanted === undefined) return [...reports];
  return reports.filter((r) => wanted.some((w) => r.id === w || r.name.toLowerCase() === w.toLowerCase()));
}

/**
 * `--tenant`: the run's environment as a multi-tenant deployment's, whose registry (in a
 * temporary directory, removed when the run ends) holds the one tenant: its entry, with this
 * run's zone, workspace and reports. The run then plans, exports, leases and records as that
 * tenant's (`tenant=<id>/` keys, the tables' tenant column): the lake is a multi-tenant one.
 * Its secret is this run's (buildRuntime's token source), never TENANT_SECRET_URI's.
 */
async function tenantEnvironment(
  entry: TenantEntry,
  env: Record<string, string>,
  reports: { id: string; name: string }[],
): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const tenant = entry.id;
  const { TIME_ZONE, WORKSPACE_ID, REPORTS: _reports, SECRET_URI: _secret, ...deployment } = env;
  const dir = await mkdtemp(path.join(tmpdir(), 'report-export-run-'));
  const registryUri = pathToFileURL(path.join(dir, 'tenants')).href;
  try {
    await tenantRegistryFromUri('--tenant', registryUri).put({
      ...entry,
      timeZone: TIME_ZONE as string,
      workspaceId: WORKSPACE_ID as string,
      reports,
      // Named on the command line: it runs, as `npm start --tenant` runs a disabled one.
      enabled: true,
    });
  } catch (cause) {
    await rm(dir, { recursive: true, force: true });
    throw new UsageError(`--tenant ${tenant}: ${(cause as Error).message}`, { cause });
  }
  return {
    env: {
      ...deployment,
      TENANT_REGISTRY_URI: registryUri,
      TENANT_SECRET_URI: `${pathToFileURL(path.join(dir, 'secrets')).href}/{tenant}.json`,
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Every Wait lasts --wait-ms here (not the state's growing seconds), so a job gets as many
 * polls as the history budget allows for this many reports (up to 450: 15 min at 2 s);
 * none set keeps the deployment's default.
 */
function pollBudget(reports: number): { MAX_POLLS_PER_JOB?: string } {
  const poll = { initialSeconds: 5, maxSeconds: 60, factor: 2 };
  for (let polls = 450; polls >= 40; polls -= 10) {
    const fits = jobsWithinBudget({ poll: { ...poll, maxPollsPerJob: polls }, maxRequestsPerJob: 16 });
    if (fits >= reports) return { MAX_POLLS_PER_JOB: String(polls) };
  }
  return {};
}

/**
 * What the run needs of AWS (a Secrets Manager secret, an S3 lake or lease store), checked
 * before the service is asked anything: without it the run would request reports and then
 * retry its writes for half a minute. Returns the clients the run then uses (the checked ones).
 */
async function checkAwsForRun(
  config: ResolvedConfig,
  out: string,
  deps: AwsClients,
  io: Pick<IOStreams, 'env' | 'cwd'>,
): Promise<AwsClients> {
  const location = secretLocation(config, io.cwd);
  let sm: ReturnType<NonNullable<AwsClients['secretsManager']>> | undefined;
  const secretsManager =
    deps.secretsManager ??
    (location.kind === 'secrets-manager'
      ? () => {
          sm ??= secretsManagerClientFor(location.secretId);
          return sm;
        }
      : undefined);
  const s3 = deps.s3 ?? s3ClientFactory(config, io.env);
  const clients: AwsClients = { ...deps, s3, ...(secretsManager ? { secretsManager } : {}) };
  await checkAws(
    'run',
    [
      ...secretTargets(location, clients, 'read', deps.secretsManager !== undefined),
      ...bucketTargets(
        [
          { uri: out, where: '--out' },
          { uri: leaseStoreUri(config, io.cwd), where: config.leaseStore?.where ?? '--lease-store' },
        ],
        s3,
        {
          injected: deps.s3 !== undefined,
          ...(config.s3Endpoint === undefined ? {} : { endpoint: config.s3Endpoint.value }),
        },
      ),
    ],
    { env: io.env },
  );
  return clients;
}

/**
 * `--dry-run`: the plan of every execution the input starts and the published partitions it
 * would replace, on the settings the run would have; exit 0 (2 for an input Plan refuses).
 */
async function printDryRun(
  input: unknown,
  env: Record<string, string>,
  context: { out: string; aws: AwsClients; json: boolean; io: IOStreams },
): Promise<number> {
  const { settingsFromEnvironment } = await import('../../../workflow/settings');
  const { InvalidInputError } = await import('../../../workflow/errors');
  const { objectStoreFromUri } = await import('../../../stores/from-uri');
  let chain: Awaited<ReturnType<typeof planChain>>;
  try {
    chain = await planChain(input, settingsFromEnvironment(env));
  } catch (cause) {
    if (cause instanceof InvalidInputError) throw new UsageError(cause.message, { cause });
    throw cause;
  }
  const lake = objectStoreFromUri('--out', context.out, context.aws.s3 ? { s3: context.aws.s3 } : {});
  const doc = dryRunDocument(chain, await replacedPartitions(chain, lake));
  context.io.stdout.write(context.json ? `${JSON.stringify(doc)}\n` : renderDryRun(doc));
  return 0;
}

/** Runs the command on `io`'s streams, environment and directory; `deps`: AWS clients (tests pass doubles). */
export async function runCommand(
  argv: readonly string[],
  io: IOStreams,
  deps: AwsClients = {},
): Promise<number> {
  const v = parseOrHelp(RUN_COMMAND, argv, io.stdout);
  if (v === undefined) return 0;
  const tenant = checkedTenant(v.tenant);
  const input = { ...executionInputOf(v), ...(tenant === undefined ? {} : { tenant }) };
  const resolved = await resolveConfig({ flags: v, env: io.env, cwd: io.cwd });
  // --tenant: the local deployment's tenant, its entry and stored login under the flags.
  const asTenant: TenantConfig | undefined =
    tenant === undefined ? undefined : await tenantConfig(tenant, v.dir, resolved, io.cwd);
  const config = asTenant?.config ?? resolved;
  const timeZone = tenantTimeZone(config);
  refuseFutureDates(input, timeZone);
  const partial = partialDayWarning(input, timeZone);
  if (partial !== undefined) io.stderr.write(`${partial}\n`);
  const dryRun = v['dry-run'] === true;
  // A dry run only reads the lake: a missing directory is not created.
  const out =
    dryRun && !v.out.startsWith('s3://')
      ? pathToFileURL(path.resolve(io.cwd, v.out)).href
      : await checkedOutUri('--out', v.out, io.cwd);
  const aws = await checkAwsForRun(config, out, deps, io);
  // A lake on this machine: one run at a time (the out-dir lock `npm start` takes too), and
  // what a killed run left there recovered before this one starts.
  const lakeDir = out.startsWith('file:') ? fileURLToPath(out) : undefined;
  const lock = lakeDir === undefined || dryRun ? undefined : await acquireOutDirLock(lakeDir);
  let cleanup: (() => Promise<void>) | undefined;
  try {
    if (lakeDir !== undefined && !dryRun) {
      for (const r of await sweepDeadStaging(lakeDir))
        io.stderr.write(`${describeStagingRecovery(r, lakeDir)}\n`);
    }
    const started = Date.now();
    const bar = progress(io.stderr, io.env);
    bar.update('Reading the login and the reports of the workspace');
    const { client, explain } = await serviceClientFromSecret(config, io, aws, asTenant?.refreshLeaseKey);
    const listed: { id: string; name: string }[] = [];
    let workspaceId: string;
    try {
      workspaceId = await resolveWorkspace(config, client);
      for await (const r of client.reporting.listReports({ workspaceId }))
        listed.push({ id: r.id, name: r.name });
    } catch (error) {
      bar.done();
      throw explain(error);
    }
    // A tenant exports its entry's reports (the workspace may hold others), as its schedule would.
    const reports = asTenant?.entry.reports ?? listed;
    const of = asTenant === undefined ? `workspace ${workspaceId}` : `tenant ${tenant}'s entry`;
    for (const wanted of v.report ?? []) {
      if (!reports.some((r) => r.id === wanted || r.name.toLowerCase() === wanted.toLowerCase())) {
        bar.done();
        throw new UsageError(
          `--report '${wanted}' is not a report of ${of} (id or name); reports: ${reports.map((r) => `'${r.name}'`).join(', ')}`,
        );
      }
    }
    const env: Record<string, string> = {
      TIME_ZONE: timeZone,
      WORKSPACE_ID: workspaceId,
      REPORTS: JSON.stringify(reports),
      OBJECT_STORE_URI: out,
      LEASE_STORE_URI: leaseStoreUri(config, io.cwd),
      SECRET_URI: secretUri(secretLocation(config, io.cwd)),
      CSV_GZIP: v['csv-gzip'] ? 'true' : 'false',
      PARQUET_CODEC: v['parquet-codec'],
      TABLE_CATALOG: v.catalog,
      ...pollBudget(reports.length),
    };
    if (dryRun) {
      bar.done();
      return await printDryRun(input, env, { out, aws, json: v.json === true, io });
    }
    const warnings: string[] = [];
    const logger: WorkflowLogger = {
      info: () => {},
      warn: (message, data) => warnings.push(handlerWarning(message, heldOf(data))),
      error: (message) => warnings.push(message),
    };
    const tenantEnv =
      asTenant === undefined
        ? undefined
        : await tenantEnvironment(asTenant.entry, env, reportsRun(reports, v.report));
    cleanup = tenantEnv?.cleanup;
    const runtime = await buildRuntime(
      config,
      tenantEnv?.env ?? env,
      logger,
      aws,
      io,
      asTenant?.refreshLeaseKey,
    );
    const c = colors(io.stderr, io.env);
    let exported = 0;
    const metrics = (): MetricsSink => ({ add: () => {}, flush: () => {} });
    // The engine and the synthesized definition (aws-cdk-lib) load in seconds: only when running.
    const { runLocalWorkflow } = await import('../../../local/run-workflow');
    const { inProcessTasks } = await import('../../../local/local-tasks');
    const { workflowLine } = await import('../workflow/command');
    // This machine is the runtime here (its credentials, its disk): the handlers run in-process.
    const result = await runLocalWorkflow(input, {
      tasks: inProcessTasks(runtime, metrics),
      waitMs: v['wait-ms'],
      retryMs: 1000,
      name: 'cli',
      onEvent: (e) => {
        if (e.type === 'StateEntered' && e.state !== undefined) {
          if (e.state.name === 'ExportResults') exported++;
          // No clock in the text: off a terminal, a line is printed only when the state changes.
          bar.update(`${e.state.name}  (${exported} exports started)`);
        }
        if (e.type === 'StateRetried' && e.state !== undefined) bar.log(c.yellow(`${e.state.name} retried`));
      },
    });
    bar.done();
    const line = { ...workflowLine(result, out), seconds: Math.round((Date.now() - started) / 100) / 10 };
    const held = await heldInRunRecords(
      result.summaries.map((s) => s.runRecordKey),
      async (key) => new TextDecoder().decode(await readObject(runtime.objects.store, key)),
    );
    if (held !== undefined) line.held = held;
    if (v.json) {
      io.stdout.write(`${JSON.stringify(line)}\n`);
    } else {
      const o = colors(io.stdout, io.env);
      const status = result.status === 'SUCCEEDED' ? o.green(result.status) : o.red(result.status);
      io.stdout.write(
        `${status}: ${formatCount(line.rows)} rows in ${formatCount(line.partitions)} partitions (${formatCount(line.files)} files) in ${formatDuration(Date.now() - started)}\n` +
          `  data  ${out}\n`,
      );
      const rows = result.summaries.map((s) => ({
        run: s.runId,
        status: s.status,
        jobs: s.jobs,
        failed: s.failedJobs,
        rows: s.rows,
        partitions: s.partitions,
      }));
      if (rows.length > 0)
        io.stdout.write(`\n${renderTable(rows, ['run', 'status', 'jobs', 'failed', 'rows', 'partitions'])}`);
      for (const h of line.held) io.stdout.write(`  held ${describeHeld(h)}\n`);
      for (const d of line.partialDays) io.stdout.write(`  partial ${d.dt} (calls up to ${d.cutOff})\n`);
      if (result.error !== null) io.stdout.write(`  error ${result.error}\n`);
    }
    // Whatever the output format, a failure says why on stderr (the error name alone does not).
    if (line.cause !== null) io.stderr.write(`${c.red('cause')} ${line.cause}\n`);
    for (const w of warnings.slice(0, 20)) io.stderr.write(`warning: ${w}\n`);
    for (const w of outcomeWarnings(line)) io.stderr.write(`${w}\n`);
    return runExitCode(line.status, line);
  } finally {
    await cleanup?.();
    await lock?.release();
  }
}
