import type { GlueClient } from '@aws-sdk/client-glue';
import { LakeFormationClient } from '@aws-sdk/client-lakeformation';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { STSClient } from '@aws-sdk/client-sts';
import { createGlueClient } from '../../../stores/aws';
import { quietAwsSdk } from '../../aws/preflight';
import type { TenantsDependencies } from '../../aws/tenants-deployment';

/** What tests (and embedding code) replace: every AWS client doctor makes, and the service's fetch. */
export interface DoctorDependencies extends TenantsDependencies {
  sts?: () => STSClient;
  lakeFormation?: () => LakeFormationClient;
  glue?: () => GlueClient;
  lambda?: () => LambdaClient;
}

/** The clients of the account checks, in one region (the stack's, else the SDK's default). */
export interface DoctorClients {
  sts: STSClient;
  lakeFormation: LakeFormationClient;
  glue: GlueClient;
  lambda: LambdaClient;
  scheduler: SchedulerClient;
}

/** Bound on each AWS call of a check: a doctor that hangs is no doctor. */
const AWS_CALL_TIMEOUT_MS = 10_000;

/**
 * The clients, made as lib/cli/aws makes its own (the SDK's warning quieted, credentials from
 * the default chain, the region given or the SDK's default); each made only when asked for.
 */
export function doctorClients(region: string | undefined, deps: DoctorDependencies): DoctorClients {
  quietAwsSdk();
  const config = region === undefined ? {} : { region };
  const made = new Map<string, unknown>();
  const once = <T>(key: string, make: () => T): T => {
    if (!made.has(key)) made.set(key, make());
    return made.get(key) as T;
  };
  return {
    get sts() {
      return once('sts', () => deps.sts?.() ?? new STSClient(config));
    },
    get lakeFormation() {
      return once('lakeFormation', () => deps.lakeFormation?.() ?? new LakeFormationClient(config));
    },
    get glue() {
      return once('glue', () => deps.glue?.() ?? createGlueClient(config));
    },
    get lambda() {
      return once('lambda', () => deps.lambda?.() ?? new LambdaClient(config));
    },
    get scheduler() {
      return once('scheduler', () => deps.scheduler?.() ?? new SchedulerClient(config));
    },
  };
}

/** The options of one call: its timeout, and the user's interrupt. */
export function callOptions(signal: AbortSignal | undefined): { abortSignal: AbortSignal } {
  const timeout = AbortSignal.timeout(AWS_CALL_TIMEOUT_MS);
  return { abortSignal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]) };
}

/** The error name AWS gave (e.g. AccessDeniedException), for a message. */
export function awsErrorName(error: unknown): string {
  const e = error as { name?: unknown; code?: unknown } | null;
  return typeof e?.name === 'string' ? e.name : typeof e?.code === 'string' ? e.code : 'Error';
}

/** What AWS said, in one line: `<name>: <message>`. */
export function awsErrorText(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  const text = typeof message === 'string' ? message.replace(/\s+/g, ' ').trim() : String(error);
  return `${awsErrorName(error)}: ${text}`;
}

/** The caller may not make the call: the check cannot judge, which is a warning, not a failure. */
export function isAccessDenied(error: unknown): boolean {
  return /^(AccessDenied|AccessDeniedException|UnauthorizedOperation|Forbidden)$/.test(awsErrorName(error));
}
