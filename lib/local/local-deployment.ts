import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { S3Client } from '@aws-sdk/client-s3';
import type { FetchLike } from '../api';
import { TEST_PAUSE_VARIABLE } from '../export';
import { DIGEST_FUNCTION_ID, type ReportExportConfig, STACK_DEFAULTS } from '../infra';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../simulator';
import type { MetricsSink, SettingsEnvironment } from '../workflow';
import {
  createDigestHandler,
  createWorkflowRuntime,
  DEFAULT_TABLE_CATALOG,
  type WorkflowLogger,
  type WorkflowRuntime,
} from '../workflow';
import { writeAutoApprovedLogin } from './auto-approve-login';
import { describeStagingRecovery, type StagingRecovery, sweepDeadStaging } from './dead-staging';
import {
  type FunctionSpec,
  LOCAL_REGION,
  LOCAL_STACK_NAME,
  type SynthesizedWorkflow,
  synthesizeWorkflow,
} from './definition';
import { FunctionProcesses } from './function-processes';
import { lambdaAssets } from './lambda-assets';
import { inProcessTasks, type LocalTasks, processTasks } from './local-tasks';
import {
  type LocalTenant,
  listReports,
  localTenancyEnvironment,
  localTenancyPaths,
  nightlyInput,
  registerLocalTenants,
} from './local-tenants';
import { type LocalWorkflowOptions, type LocalWorkflowResult, runLocalWorkflow } from './run-workflow';

export interface LocalDeploymentOptions {
  /** Working directory: the secret file, leases, logs and metrics go here. */
  workDir: string;
  /** Where the data lake goes: `file:///dir` or `s3://bucket/prefix`. Default `file://<workDir>/data-lake`. */
  objectStoreUri?: string;
  /** S3 client for s3:// URIs (e.g. fauxqs on loopback), in this process. */
  s3?: () => S3Client;
  /** The S3 endpoint the functions' processes use for s3:// URIs (`AWS_ENDPOINT_URL_S3`). */
  s3Endpoint?: string;
  /** Options of the local service. */
  simulator?: SimulatorOptions;
  /**
   * Settings on top of the template's environment, for what a stack never sets
   * (MAX_JOBS_PER_EXECUTION) or a test must force (a tiny SPILL_BUDGET_BYTES).
   */
  settings?: SettingsEnvironment;
  /** The stack's configuration over the local one (workspace, reports and zone come from the service). */
  stackConfig?: Partial<ReportExportConfig>;
  /**
   * `processes` (default): each Task runs its function's bundle as `cdk synth` builds it, in
   * processes with the template's environment, memory and timeout. `in-process`: the handler
   * factories on this process's runtime (only for tests that inject `fetch`).
   */
  functions?: 'processes' | 'in-process';
  /** fetch of the handlers' clients (in-process only). */
  fetch?: FetchLike;
  /** Node binary of the functions' processes. Default: this one. */
  nodePath?: string;
  /** Called before the Lambda bundles are built (once per change of the sources). */
  onBundling?: () => void;
  /** Refresh the access token this long before its expiry. Default 5 minutes. */
  expirySkewMs?: number;
  /** The secret file the login fills (mode 0600). Default `<workDir>/secrets.json`. Single-tenant only. */
  secretFile?: string;
  /**
   * `single` (default): one tenant, the service's first, as a stack without a tenant registry
   * (TIME_ZONE, WORKSPACE_ID, REPORTS and SECRET_URI in the functions' environment; no
   * `tenant` in inputs, keys or tables). `multi`: every tenant of the local service in a
   * registry at `<workDir>/tenants/` with its secret at `<workDir>/secrets/<id>.json`
   * (TENANT_REGISTRY_URI and TENANT_SECRET_URI instead); each input names its tenant.
   */
  tenancy?: 'single' | 'multi';
  /**
   * Told of staging a dead run left in a file:// lake, which starting recovers (see
   * sweepDeadStaging), or leaves when it cannot tell its owner has ended. Default: a process
   * warning (`REPORT_EXPORT_STAGING_RECOVERED`) on stderr.
   */
  onStagingRecovery?: (recovery: StagingRecovery, message: string) => void;
}

/** What a prepared deployment runs. */
interface PreparedWorkflow {
  /** The synthesized template's definition and functions. */
  workflow: SynthesizedWorkflow;
  /** The Tasks' runner of `run` (the functions' processes, or in-process handlers). */
  tasks: LocalTasks;
  /** Another, independent set of the functions (a second Lambda fleet: no warm process shared). */
  newTasks(): LocalTasks;
  /**
   * Invokes the Digest function (the night's digest: not a Task, its own schedule's) with
   * `event`, as its schedule would; its notice goes to {@link LocalDeployment.noticesFile}.
   */
  digest(event: { scheduledTime?: string }): Promise<unknown>;
}

/** A local service, a logged-in secret, and the handlers' runtime on local adapters. */
export interface LocalDeployment {
  sim: RunningSimulator;
  env: Record<string, string>;
  runtime: WorkflowRuntime;
  /** The single tenant's secret file; in a multi-tenant deployment, the first tenant's. */
  secretFile: string;
  tenancy: 'single' | 'multi';
  /** The tenants in the registry, in the service's order (none in a single-tenant deployment). */
  tenants: LocalTenant[];
  /**
   * What the tenant's Scheduler schedule would send at its hour on the local date `now`
   * falls on in its zone: `{ tenant, scheduledTime }`. Throws for an unknown tenant.
   */
  nightlyInput(tenant: string, now?: Date): { tenant: string; scheduledTime: string };
  /** Every line the handlers logged (JSON). */
  logLines: string[];
  /** Every metric Finalize published (CloudWatch embedded metric format when in processes). */
  metricLines: string[];
  /** The single tenant's reports (a multi-tenant deployment's are in each tenant's entry). */
  reports: { id: string; name: string }[];
  /**
   * Synthesizes the stack for this deployment and readies its functions (bundles built when
   * the sources changed): seconds, once; `run` does it when not done yet.
   */
  prepare(): Promise<PreparedWorkflow>;
  run(input: unknown, options?: Partial<LocalWorkflowOptions>): Promise<LocalWorkflowResult>;
  /** The night's digest of `scheduledTime` (default now), as its schedule would invoke it. */
  digest(scheduledTime?: string): Promise<unknown>;
  /** Where the Digest function's notices go locally: one JSON line each (`NOTICE_TOPIC_URI`). */
  noticesFile: string;
  close(): Promise<void>;
}

/**
 * The deployment, on this machine: starts the local service, logs in through its OAuth
 * flow (auto-approval), writes the secret file a real login would fill, and builds the
 * handlers' runtime from the same environment variables a Lambda gets, with file:// (or
 * fauxqs) stores instead of AWS.
 */
export async function startLocalDeployment(options: LocalDeploymentOptions): Promise<LocalDeployment> {
  const workDir = path.resolve(options.workDir);
  await fs.mkdir(workDir, { recursive: true });
  const objectStoreUri = options.objectStoreUri ?? pathToFileURL(path.join(workDir, 'data-lake')).href;
  // Before any task runs: what a killed run left in the lake (its staging, a half-done
  // promotion) is recovered; leases of dead holders are taken over by the lease store.
  if (objectStoreUri.startsWith('file:')) await recoverLake(fileURLToPath(objectStoreUri), options);
  const sim = await startSimulator({ autoApprove: true, ...options.simulator });
  try {
    const tenancy = options.tenancy ?? 'single';
    const leasesDir = path.join(workDir, 'leases');
    const skew = options.expirySkewMs === undefined ? {} : { expirySkewMs: options.expirySkewMs };
    let secretFile: string;
    let reports: { id: string; name: string }[] = [];
    let tenants: LocalTenant[] = [];
    // Where the functions find their tenant's settings and grant.
    let tenancyEnv: Record<string, string>;
    if (tenancy === 'multi') {
      const paths = localTenancyPaths(workDir);
      tenants = await registerLocalTenants(sim, { paths, leasesDir, ...skew });
      secretFile = tenants[0]?.secretFile ?? path.join(paths.secretsDir, 'none.json');
      tenancyEnv = localTenancyEnvironment(paths);
    } else {
      secretFile = path.resolve(options.secretFile ?? path.join(workDir, 'secrets.json'));
      await writeAutoApprovedLogin(sim, secretFile);
      reports = await listReports(sim, sim.workspaceId, secretFile, leasesDir, skew);
      tenancyEnv = {
        TIME_ZONE: sim.timeZoneId,
        WORKSPACE_ID: sim.workspaceId,
        REPORTS: JSON.stringify(reports),
        SECRET_URI: pathToFileURL(secretFile).href,
      };
    }
    const env: Record<string, string> = {
      ...tenancyEnv,
      OBJECT_STORE_URI: objectStoreUri,
      LEASE_STORE_URI: pathToFileURL(leasesDir).href,
      ...(options.settings as Record<string, string> | undefined),
    };
    const logLines: string[] = [];
    const log = (level: string) => (message: string, data?: Record<string, unknown>) => {
      logLines.push(JSON.stringify({ level, message, ...data, timestamp: new Date().toISOString() }));
    };
    const logger: WorkflowLogger = { info: log('INFO'), warn: log('WARN'), error: log('ERROR') };
    const runtime = createWorkflowRuntime(env, {
      logger,
      ...(options.s3 === undefined ? {} : { s3: options.s3 }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.expirySkewMs === undefined ? {} : { expirySkewMs: options.expirySkewMs }),
    });
    const metricLines: string[] = [];
    const metrics = (): MetricsSink => {
      const stored: Record<string, { unit: string; value: number }> = {};
      return {
        add: (name, unit, value) => {
          stored[name] = { unit, value };
        },
        flush: () => {
          metricLines.push(JSON.stringify(stored));
        },
      };
    };
    const fleets: LocalTasks[] = [];
    const prepare = async (): Promise<PreparedWorkflow> => {
      const workflow = synthesizeWorkflow({
        ...options.stackConfig,
        ...stackTenancy(tenancy, sim, reports),
      });
      const { tasks: build, digest } = await tasksFor(workflow);
      const newTasks = () => {
        const tasks = build();
        fleets.push(tasks);
        return tasks;
      };
      return { workflow, tasks: newTasks(), newTasks, digest };
    };
    const noticesFile = path.join(workDir, 'notices.jsonl');
    const noticeTopicUri = pathToFileURL(noticesFile).href;
    const tasksFor = async (
      workflow: SynthesizedWorkflow,
    ): Promise<{ tasks: () => LocalTasks; digest: PreparedWorkflow['digest'] }> => {
      if (options.functions === 'in-process') {
        const digest = createDigestHandler(runtime, {
          noticeTopicUri,
          deployment: LOCAL_STACK_NAME,
          nightlyHour: options.stackConfig?.schedule?.hour ?? STACK_DEFAULTS.schedule.hour,
        });
        return { tasks: () => inProcessTasks(runtime, metrics), digest };
      }
      const assets = await lambdaAssets(options.onBundling);
      const local = {
        OBJECT_STORE_URI: env.OBJECT_STORE_URI as string,
        LEASE_STORE_URI: env.LEASE_STORE_URI as string,
        // The settings' variables the template resolves at deploy time (the secret's ARN,
        // the registry's bucket) have local values here.
        ...tenancyEnv,
        // The template names the Glue catalog; here the tables' catalog is the file one beside
        // them (no Glue on this machine), as for the in-process runtime.
        TABLE_CATALOG: env.TABLE_CATALOG ?? DEFAULT_TABLE_CATALOG,
        ...(options.expirySkewMs === undefined
          ? {}
          : { TOKEN_REFRESH_SKEW_SECONDS: String(Math.round(options.expirySkewMs / 1000)) }),
        ...(options.settings as Record<string, string> | undefined),
      };
      const tmpRoot = path.join(workDir, 'lambda-tmp');
      await fs.mkdir(tmpRoot, { recursive: true });
      const onOutput = (line: string) => (isMetricLine(line) ? metricLines : logLines).push(line);
      // The Digest function: no Task of the definition; invoked by name, as its schedule does.
      const digest = async (event: { scheduledTime?: string }): Promise<unknown> => {
        const logicalId = Object.keys(workflow.functions).find((id) => id.startsWith(DIGEST_FUNCTION_ID));
        const spec = logicalId === undefined ? undefined : workflow.functions[logicalId];
        const assetDir = logicalId === undefined ? undefined : assets[logicalId];
        if (spec === undefined || assetDir === undefined)
          throw new Error('No bundle for the Digest function');
        const fn = new FunctionProcesses({
          spec,
          assetDir,
          environment: functionEnvironment(
            spec,
            { ...local, NOTICE_TOPIC_URI: noticeTopicUri },
            options.s3Endpoint,
          ),
          onOutput,
          tmpRoot,
          ...(options.nodePath === undefined ? {} : { nodePath: options.nodePath }),
        });
        try {
          return await fn.invoke(event);
        } finally {
          await fn.close();
        }
      };
      const tasks = () => {
        const byFunction = new Map<string, FunctionProcesses>();
        const byState: Record<string, FunctionProcesses> = {};
        for (const [state, logicalId] of Object.entries(workflow.taskFunctions)) {
          let fn = byFunction.get(logicalId);
          if (fn === undefined) {
            const spec = workflow.functions[logicalId];
            const assetDir = assets[logicalId];
            if (spec === undefined || assetDir === undefined) throw new Error(`No bundle for ${logicalId}`);
            fn = new FunctionProcesses({
              spec,
              assetDir,
              environment: functionEnvironment(spec, local, options.s3Endpoint),
              onOutput,
              tmpRoot,
              ...(options.nodePath === undefined ? {} : { nodePath: options.nodePath }),
            });
            byFunction.set(logicalId, fn);
          }
          byState[state] = fn;
        }
        return processTasks(byState);
      };
      return { tasks, digest };
    };
    let prepared: Promise<PreparedWorkflow> | undefined;
    const ready = () => {
      prepared ??= prepare();
      return prepared;
    };
    return {
      sim,
      env,
      runtime,
      secretFile,
      tenancy,
      tenants,
      nightlyInput: (id, now) => {
        const tenant = tenants.find((t) => t.id === id);
        if (tenant === undefined) {
          throw new Error(
            `no tenant '${id}' in this deployment (${tenants.map((t) => t.id).join(', ') || 'none'})`,
          );
        }
        return nightlyInput(tenant.entry, now);
      },
      logLines,
      metricLines,
      reports,
      prepare: ready,
      run: async (input, runOptions) => {
        const { workflow, tasks } = await ready();
        return runLocalWorkflow(input, { tasks, definition: workflow.definition, ...runOptions });
      },
      digest: async (scheduledTime) =>
        (await ready()).digest(scheduledTime === undefined ? {} : { scheduledTime }),
      noticesFile,
      close: async () => {
        await prepared?.catch(() => undefined);
        await Promise.all(fleets.map((f) => f.close()));
        // What an interrupted execution staged for its Commit state (its functions' processes
        // now ended) is nobody's: swept as at the next start, before the lake is let go.
        if (objectStoreUri.startsWith('file:')) await recoverLake(fileURLToPath(objectStoreUri), options);
        await sim.close();
      },
    };
  } catch (error) {
    await sim.close();
    throw error;
  }
}

/** Sweeps the staging of dead runs from a local lake and says what it found (never throws). */
async function recoverLake(lakeDir: string, options: LocalDeploymentOptions): Promise<void> {
  const report =
    options.onStagingRecovery ??
    ((_: StagingRecovery, message: string) =>
      process.emitWarning(message, { code: 'REPORT_EXPORT_STAGING_RECOVERED' }));
  try {
    for (const r of await sweepDeadStaging(lakeDir)) report(r, describeStagingRecovery(r, lakeDir));
  } catch (error) {
    process.emitWarning(
      `could not look for staging left by ended runs in ${lakeDir}: ${error instanceof Error ? error.message : String(error)}`,
      { code: 'REPORT_EXPORT_STAGING_RECOVERED' },
    );
  }
}

/** Metrics in CloudWatch's embedded metric format (what Powertools Metrics prints). */
function isMetricLine(line: string): boolean {
  return line.startsWith('{') && line.includes('"_aws"');
}

/**
 * A function's process environment: the template's variables, the local values of the
 * variables the template resolves at deploy time (store URIs, the secret), and what Lambda
 * itself sets. Nothing of this machine's environment leaks in but PATH (and a test's pause hook).
 */
function functionEnvironment(
  spec: FunctionSpec,
  local: Record<string, string>,
  s3Endpoint: string | undefined,
): Record<string, string> {
  const missing = spec.deployTimeVariables.filter(
    (name) => local[name] === undefined && !UNSET_LOCALLY.includes(name),
  );
  if (missing.length > 0) {
    throw new Error(
      `${spec.logicalId}: no local value for ${missing.join(', ')} (resolved only at deploy time)`,
    );
  }
  const environment: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TZ: 'UTC',
    AWS_REGION: LOCAL_REGION,
    AWS_DEFAULT_REGION: LOCAL_REGION,
    AWS_LAMBDA_FUNCTION_NAME: `${LOCAL_STACK_NAME}-${spec.logicalId}`,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memorySizeMb),
    AWS_EXECUTION_ENV: `AWS_Lambda_${spec.runtime}`,
    // Local S3 (fauxqs) takes any key; nothing of the developer's own credentials is passed.
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    ...(s3Endpoint === undefined ? {} : { AWS_ENDPOINT_URL_S3: s3Endpoint }),
    // The one variable of this machine's environment passed on, for tests only: stops the
    // publish step at a phase so a test can kill the run there (lib/export/publish/test-pause.ts).
    ...(process.env[TEST_PAUSE_VARIABLE] ? { [TEST_PAUSE_VARIABLE]: process.env[TEST_PAUSE_VARIABLE] } : {}),
    ...spec.environment,
    ...local,
  };
  for (const name of UNSET_LOCALLY) delete environment[name];
  return environment;
}

/**
 * Variables of the template that have no local value and stay unset: TENANT_ROLE_ARN (no STS
 * here; without it a tenant's run uses the function's own stores, as the runtime documents).
 */
const UNSET_LOCALLY: readonly string[] = ['TENANT_ROLE_ARN'];

/**
 * What the stack's configuration says of tenants: a single-tenant stack names the service's
 * workspace, reports and zone; a multi-tenant one has a registry instead.
 */
function stackTenancy(
  tenancy: 'single' | 'multi',
  sim: RunningSimulator,
  reports: { id: string; name: string }[],
): Partial<ReportExportConfig> {
  return tenancy === 'single'
    ? { workspaceId: sim.workspaceId, reports, timeZone: sim.timeZoneId }
    : { tenancy: 'multi' };
}
