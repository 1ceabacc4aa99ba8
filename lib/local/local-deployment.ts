import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { S3Client } from '@aws-sdk/client-s3';
import { createClient, type FetchLike, refreshTokens } from '../api';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../simulator';
import { LocalFileSecretStore } from '../stores';
import { LocalLeaseStore } from '../stores/local-lease-store';
import type { MetricsSink } from '../workflow/finalize';
import { createWorkflowRuntime, type WorkflowLogger, type WorkflowRuntime } from '../workflow/runtime';
import { SecretTokenSource } from '../workflow/service-secret';
import type { SettingsEnvironment } from '../workflow/settings';
import { writeAutoApprovedLogin } from './auto-approve-login';
import { type LocalWorkflowOptions, type LocalWorkflowResult, runLocalWorkflow } from './run-workflow';

export interface LocalDeploymentOptions {
  /** Working directory: the secret file, leases, logs and metrics go here. */
  workDir: string;
  /** Where the data lake goes: `file:///dir` or `s3://bucket/prefix`. Default `file://<workDir>/data-lake`. */
  objectStoreUri?: string;
  /** S3 client for s3:// URIs (e.g. fauxqs on loopback). */
  s3?: () => S3Client;
  /** Options of the local service. */
  simulator?: SimulatorOptions;
  /** Workflow settings as the handlers' environment (TIME_ZONE and REPORTS default from the service). */
  settings?: SettingsEnvironment;
  /** fetch of the handlers' clients (tests). */
  fetch?: FetchLike;
  /** Refresh the access token this long before its expiry. Default 5 minutes. */
  expirySkewMs?: number;
  /** The secret file the login fills (mode 0600). Default `<workDir>/secrets.json`. */
  secretFile?: string;
}

/** A local service, a logged-in secret, and the handlers' runtime on local adapters. */
export interface LocalDeployment {
  sim: RunningSimulator;
  env: Record<string, string>;
  runtime: WorkflowRuntime;
  secretFile: string;
  /** Every line the handlers logged (JSON). */
  logLines: string[];
  /** Every metric Finalize published. */
  metricLines: string[];
  reports: { id: string; name: string }[];
  run(input: unknown, options?: Partial<LocalWorkflowOptions>): Promise<LocalWorkflowResult>;
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
  const sim = await startSimulator({ autoApprove: true, ...options.simulator });
  try {
    const secretFile = path.resolve(options.secretFile ?? path.join(workDir, 'secrets.json'));
    await writeAutoApprovedLogin(sim, secretFile);
    // The reports, listed with the secret's own token source (tokens may live only a second
    // in tests, and rotate): the same refresh path the handlers use.
    const lister = new SecretTokenSource({
      secrets: new LocalFileSecretStore(secretFile),
      secretName: 'service',
      leases: new LocalLeaseStore(path.join(workDir, 'leases')),
      refresh: (client, refreshToken) => refreshTokens(client, refreshToken),
      ...(options.expirySkewMs === undefined ? {} : { expirySkewMs: options.expirySkewMs }),
    });
    const api = createClient({ baseUrl: sim.baseUrl, auth: lister, workspaceId: sim.workspaceId });
    const reports: { id: string; name: string }[] = [];
    for await (const r of api.reporting.listReports()) reports.push({ id: r.id, name: r.name });
    const env: Record<string, string> = {
      TIME_ZONE: sim.timeZoneId,
      WORKSPACE_ID: sim.workspaceId,
      REPORTS: JSON.stringify(reports),
      OBJECT_STORE_URI: options.objectStoreUri ?? pathToFileURL(path.join(workDir, 'data-lake')).href,
      LEASE_STORE_URI: pathToFileURL(path.join(workDir, 'leases')).href,
      SECRET_URI: pathToFileURL(secretFile).href,
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
    return {
      sim,
      env,
      runtime,
      secretFile,
      logLines,
      metricLines,
      reports,
      run: (input, runOptions) => runLocalWorkflow(input, { runtime, metrics, ...runOptions }),
      close: () => sim.close(),
    };
  } catch (error) {
    await sim.close();
    throw error;
  }
}
