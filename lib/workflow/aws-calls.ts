import {
  backupKey,
  DATASETS,
  manifestKey,
  OUTPUT_FORMATS,
  type OutputLayout,
  partitionPrefix,
  partKey,
  stagedKey,
  stagingRoot,
} from '../export';
import {
  AWS_CALLS,
  type AwsCallName,
  type IamPermission,
  STORE_OPERATION_CALLS,
  type TargetOf,
} from '../stores';
import { DEFAULT_LEASE_PREFIX, leaseObjectKey, parseS3Uri } from '../stores/aws';
import { publishLease } from './export-task';
import { runRecordKey } from './run-record';
import { TOKEN_REFRESH_LEASE } from './service-secret';

/**
 * Which AWS calls the workflow makes, with the real keys and ARNs: the store operations
 * each handler performs (on the locations its environment names), expanded through the
 * stores' own call table (lib/stores/aws-calls.ts), and the calls of the state machine.
 * test/infra/iam-evaluation.test.ts evaluates every one against the synthesized roles.
 * test/e2e/workflow/aws-calls-coverage.test.ts records the store operations of real
 * executions and fails on any this list does not declare for the function that made it.
 */

/** The workflow's functions, one per Lambda task. */
export const WORKFLOW_FUNCTIONS = [
  'plan',
  'requestReport',
  'checkStatus',
  'exportResults',
  'finalize',
] as const;
export type WorkflowFunctionName = (typeof WORKFLOW_FUNCTIONS)[number];

/** The environment a handler finds its stores and reports in (lib/workflow/runtime.ts, settings.ts). */
export interface StoreEnvironment {
  readonly OBJECT_STORE_URI: string;
  readonly LEASE_STORE_URI: string;
  readonly SECRET_URI: string;
  /** JSON list of `{ id, name }`. */
  readonly REPORTS: string;
  readonly CSV_GZIP?: string;
}

/** One use of a store by a handler: the adapter operation and what it acts on. */
export type StoreUse = { readonly why: string } & (
  | { readonly store: 'objects'; readonly operation: KeyOperation; readonly key: string }
  | { readonly store: 'objects'; readonly operation: 'list'; readonly prefix: string }
  | {
      readonly store: 'objects';
      readonly operation: 'copy';
      readonly fromKey: string;
      readonly toKey: string;
    }
  | { readonly store: 'leases'; readonly operation: 'acquire' | 'release'; readonly key: string }
  | { readonly store: 'secret'; readonly operation: 'get' | 'put' }
);

/** One AWS call a principal makes, with the permissions it needs. */
export interface DeclaredCall {
  readonly why: string;
  /** The stores' call (lib/stores/aws-calls.ts), or the service API for calls outside the stores. */
  readonly call: string;
  readonly permissions: readonly IamPermission[];
}

/**
 * Sample values the key layout is filled with: every date and run lands under the same
 * prefixes. test/e2e/workflow/aws-calls-coverage.test.ts turns each into a wildcard (with
 * the part numbers) to match the keys real executions use against these declarations.
 */
export const SAMPLE = {
  dt: '2026-11-18',
  runId: 'req-7f3a-0a1b2c3d',
  executionName: 'nightly-2026-11-19',
  startedAt: '2026-11-19T02:00:00.000Z',
} as const;

/** Every task that calls the service reads the token, and refreshes it under a lease. */
const TOKEN_USES: readonly StoreUse[] = [
  { why: 'read the access token', store: 'secret', operation: 'get' },
  { why: 'take the token refresh lease', store: 'leases', operation: 'acquire', key: TOKEN_REFRESH_LEASE },
  { why: 'store the refreshed tokens', store: 'secret', operation: 'put' },
  { why: 'release the token refresh lease', store: 'leases', operation: 'release', key: TOKEN_REFRESH_LEASE },
];

type KeyOperation = 'put' | 'putFile' | 'head' | 'get' | 'deleteMany';
const onKey = (operation: KeyOperation, why: string, key: string): StoreUse => ({
  why,
  store: 'objects',
  operation,
  key,
});
const copy = (why: string, fromKey: string, toKey: string): StoreUse => ({
  why,
  store: 'objects',
  operation: 'copy',
  fromKey,
  toKey,
});
const list = (why: string, prefix: string): StoreUse => ({
  why,
  store: 'objects',
  operation: 'list',
  prefix,
});

/** ExportResults on one report's partition of the sample date: the publish protocol's steps (publish.ts). */
function exportUses(layout: OutputLayout): StoreUse[] {
  const { dt, runId } = SAMPLE;
  const lease = publishLease(layout.reportId, dt);
  return [
    { why: 'take the partition lease', store: 'leases', operation: 'acquire', key: lease },
    { why: 'release the partition lease', store: 'leases', operation: 'release', key: lease },
    list('clean the staging area', `${stagingRoot(layout, runId)}/`),
    ...Object.values(OUTPUT_FORMATS).flatMap((format) => {
      const part = partKey(layout, format, dt, 0);
      const staged = stagedKey(layout, runId, part);
      const manifest = manifestKey(layout, format, dt);
      return [
        onKey('putFile', `stage a ${format} part`, staged),
        onKey('head', `check the staged ${format} part's size`, staged),
        list(`list the ${format} partition`, `${partitionPrefix(layout, format, dt)}/`),
        copy(`back up the ${format} partition's part`, part, backupKey(layout, runId, part)),
        copy(`back up the ${format} partition's manifest`, manifest, backupKey(layout, runId, manifest)),
        copy(`promote the staged ${format} part`, staged, part),
        onKey('put', `write the ${format} manifest`, manifest),
        ...(format === OUTPUT_FORMATS.parquet
          ? [onKey('get', 'read the published rows (shrink guard)', manifest)]
          : []),
        onKey('deleteMany', `delete a stale ${format} part`, partKey(layout, format, dt, 1)),
        copy(`roll back the ${format} part`, backupKey(layout, runId, part), part),
        copy(`roll back the ${format} manifest`, backupKey(layout, runId, manifest), manifest),
        onKey('deleteMany', `roll back a new ${format} manifest`, manifest),
        onKey('deleteMany', `delete the ${format} staging`, staged),
        onKey('deleteMany', `delete the backup of the ${format} part`, backupKey(layout, runId, part)),
        onKey(
          'deleteMany',
          `delete the backup of the ${format} manifest`,
          backupKey(layout, runId, manifest),
        ),
      ];
    }),
  ];
}

/** The store operations a handler performs, on the keys its environment and the key layout give. */
export function functionStoreUses(fn: WorkflowFunctionName, env: StoreEnvironment): StoreUse[] {
  const { prefix } = parseS3Uri('OBJECT_STORE_URI', env.OBJECT_STORE_URI);
  switch (fn) {
    case 'plan':
      return []; // validates the input and plans: no store, no service
    case 'requestReport':
    case 'checkStatus':
      return [...TOKEN_USES];
    case 'exportResults': {
      const reports = JSON.parse(env.REPORTS) as { id: string }[];
      const csvExtension = env.CSV_GZIP === 'true' ? '.csv.gz' : '.csv';
      return [
        ...TOKEN_USES,
        ...reports.flatMap((r) =>
          Object.values(DATASETS).flatMap((dataset) =>
            exportUses({ prefix, dataset, reportId: r.id, csvExtension }),
          ),
        ),
      ];
    }
    case 'finalize': {
      const run = { runId: SAMPLE.runId, startedAt: SAMPLE.startedAt };
      const failed = { runId: SAMPLE.executionName, startedAt: SAMPLE.startedAt };
      return [
        onKey('put', 'write the run record', runRecordKey(prefix, run)),
        onKey('put', 'record a failure caught outside the jobs', runRecordKey(prefix, failed, 'failure')),
      ];
    }
  }
}

function expand<N extends AwsCallName>(
  why: string,
  calls: readonly N[],
  target: TargetOf<N>,
): DeclaredCall[] {
  return calls.map((call) => ({
    why,
    call,
    permissions: (AWS_CALLS[call].permissions as (t: TargetOf<N>) => readonly IamPermission[])(target),
  }));
}

/** A store use as the AWS calls its adapter makes (STORE_OPERATION_CALLS). */
function storeUseCalls(use: StoreUse, env: StoreEnvironment): DeclaredCall[] {
  switch (use.store) {
    case 'secret': {
      const secretId = env.SECRET_URI.replace(/^secretsmanager:/, '');
      return expand(use.why, STORE_OPERATION_CALLS.secretsManagerStore[use.operation], { secretId });
    }
    case 'leases': {
      const { bucket, prefix } = parseS3Uri('LEASE_STORE_URI', env.LEASE_STORE_URI);
      const key = leaseObjectKey(prefix || DEFAULT_LEASE_PREFIX, use.key);
      return expand(use.why, STORE_OPERATION_CALLS.s3LeaseStore[use.operation], { bucket, key });
    }
    case 'objects': {
      const { bucket } = parseS3Uri('OBJECT_STORE_URI', env.OBJECT_STORE_URI);
      const calls = STORE_OPERATION_CALLS.s3Store;
      if (use.operation === 'list') return expand(use.why, calls.list, { bucket, prefix: use.prefix });
      if (use.operation === 'copy')
        return expand(use.why, calls.copy, { bucket, fromKey: use.fromKey, toKey: use.toKey });
      return expand(use.why, calls[use.operation], { bucket, key: use.key });
    }
  }
}

/** Every AWS call a handler makes through its stores. */
export function functionAwsCalls(fn: WorkflowFunctionName, env: StoreEnvironment): DeclaredCall[] {
  return functionStoreUses(fn, env).flatMap((use) => storeUseCalls(use, env));
}

/** A call outside the stores: one action on one resource. */
const single = (why: string, action: string, resource: string): DeclaredCall => ({
  why,
  call: action,
  permissions: [{ action, resource }],
});

/**
 * What the Lambda service does with every function's role: logs to the function's log
 * group (both actions act on the stream) and sends its X-Ray segments (active tracing).
 */
export function lambdaRuntimeCalls(logGroupArn: string): DeclaredCall[] {
  const stream = `${logGroupArn.replace(/:\*$/, '')}:log-stream:2026/11/19/[$LATEST]0a1b2c3d`;
  return [
    single('open a log stream', 'logs:CreateLogStream', stream),
    single('write log events', 'logs:PutLogEvents', stream),
    ...['xray:PutTraceSegments', 'xray:PutTelemetryRecords'].map((a) => single('X-Ray tracing', a, '*')),
  ];
}

/** The resources the state machine acts on, as the deployment names them. */
interface StateMachineResources {
  readonly stateMachineArn: string;
  readonly functionArns: Readonly<Record<WorkflowFunctionName, string>>;
  readonly alarmTopicArn: string;
  /** The KMS key the alarm topic is encrypted with. */
  readonly alarmTopicKeyArn: string;
}

/**
 * The state machine's calls: its five Lambda tasks, failure notices to the encrypted alarm
 * topic (SNS generates and decrypts the data key as the publisher), the continuation of a
 * long backfill (StartExecution of itself, DescribeExecution of the continuation it
 * started), execution logs and X-Ray.
 */
export function stateMachineAwsCalls(r: StateMachineResources): DeclaredCall[] {
  const execution = `${r.stateMachineArn.replace(':stateMachine:', ':execution:')}:2f1d7c0e9b4a6d3c8e5f1a2b3c4d5e6f7a8b9c0d`;
  const logDelivery = [
    'logs:CreateLogDelivery',
    'logs:GetLogDelivery',
    'logs:UpdateLogDelivery',
    'logs:DeleteLogDelivery',
    'logs:ListLogDeliveries',
    'logs:PutResourcePolicy',
    'logs:DescribeResourcePolicies',
    'logs:DescribeLogGroups',
  ];
  const xray = [
    'xray:PutTraceSegments',
    'xray:PutTelemetryRecords',
    'xray:GetSamplingRules',
    'xray:GetSamplingTargets',
  ];
  const notice = 'encrypt the notice (SNS, as the publisher)';
  return [
    ...WORKFLOW_FUNCTIONS.map((fn) => single(`invoke ${fn}`, 'lambda:InvokeFunction', r.functionArns[fn])),
    single('notify a failure', 'sns:Publish', r.alarmTopicArn),
    single(notice, 'kms:GenerateDataKey', r.alarmTopicKeyArn),
    single(notice, 'kms:Decrypt', r.alarmTopicKeyArn),
    single('continue a long backfill', 'states:StartExecution', r.stateMachineArn),
    single('find the continuation already started', 'states:DescribeExecution', execution),
    ...logDelivery.map((a) => single('deliver execution logs', a, '*')),
    ...xray.map((a) => single('X-Ray tracing', a, '*')),
  ];
}
