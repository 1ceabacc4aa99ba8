import type { EvaluationResult } from '@cloud-copilot/iam-simulate';
import { describe, expect, it } from 'vitest';
import { manifestKey, partKey } from '../../lib/export/layout';
import { stagedDirectorySyncKey } from '../../lib/export/publish/staged-directory-sync';
import { stagedRunKey } from '../../lib/export/publish/staged-run';
import { directoryDataPrefix } from '../../lib/export/table/snapshot/replace-directories';
import {
  CONTACT_TABLES,
  ICEBERG_TABLES,
  isContactTable,
  type LakeTableName,
} from '../../lib/infra/iceberg-tables';
import { STATE_NAMES } from '../../lib/infra/state-names';
import { tableRootKey } from '../../lib/stores';
import {
  AWS_CALLS,
  type AwsCallName,
  type IamPermission,
  STORE_OPERATION_CALLS,
} from '../../lib/stores/aws-calls';
import { parseS3Uri } from '../../lib/stores/from-uri';
import {
  type DeclaredCall,
  functionAwsCalls,
  lambdaRuntimeCalls,
  SAMPLE,
  type StoreEnvironment,
  stateMachineAwsCalls,
  WORKFLOW_FUNCTIONS,
  type WorkflowFunctionName,
} from '../../lib/workflow/aws-calls';
import { directorySyncReportKey } from '../../lib/workflow/directory-sync-task';
import { allStates, synthStack } from './stack-synth';
import { ACCOUNT, REGION, type RolePrincipal, TemplateIam } from './template-iam';

/**
 * IAM, evaluated: every AWS call the workflow's functions and its state machine make
 * (lib/workflow/aws-calls.ts, expanded through lib/stores/aws-calls.ts), with the keys and
 * ARNs of the synthesized stack, is run through an IAM policy simulator against the roles'
 * policies and the targets' resource policies; so are calls that must be refused.
 */

type State = {
  Resource?: string;
  Parameters?: Record<string, unknown>;
  ItemProcessor?: { States: Record<string, State> };
  Branches?: { States: Record<string, State> }[];
};

interface WorkflowFunction {
  name: WorkflowFunctionName;
  arn: string;
  role: RolePrincipal;
  env: StoreEnvironment;
  logGroupArn: string;
}

/** The deployment as the template describes it: the state machine, what it invokes and notifies. */
function readDeployment(iam: TemplateIam) {
  const [[smId, sm] = []] = iam.ofType('AWS::StepFunctions::StateMachine');
  if (smId === undefined || sm === undefined) throw new Error('no state machine in the template');
  const definition = JSON.parse(iam.resolve(sm.Properties?.DefinitionString) as string) as {
    States: Record<string, State>;
  };
  const states = allStates(definition);
  const stateOf = (name: string) => {
    const state = states[name];
    if (state === undefined) throw new Error(`no state ${name} in the definition`);
    return state;
  };

  const taskFunction = (name: WorkflowFunctionName, state: string): WorkflowFunction => {
    // The function a Task invokes: its Resource (payloadResponseOnly) or its FunctionName.
    const task = stateOf(state);
    const arn = task.Resource?.startsWith('arn:aws:lambda:')
      ? task.Resource
      : String(task.Parameters?.FunctionName);
    const props = iam.resources[iam.idOf('AWS::Lambda::Function', arn)]?.Properties ?? {};
    const logGroup = iam.resolve((props.LoggingConfig as { LogGroup?: unknown } | undefined)?.LogGroup);
    const functionName = arn.slice(arn.lastIndexOf(':') + 1);
    return {
      name,
      arn,
      role: iam.role(iam.resolve(props.Role) as string, functionName),
      env: iam.resolve((props.Environment as { Variables: unknown }).Variables) as StoreEnvironment,
      logGroupArn: `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${String(logGroup ?? `/aws/lambda/${functionName}`)}`,
    };
  };
  const functions = WORKFLOW_FUNCTIONS.map((name) => taskFunction(name, STATE_NAMES[name]));

  const topicArn = String(stateOf(STATE_NAMES.notifyFailure).Parameters?.TopicArn);
  const topic = iam.resources[iam.idOf('AWS::SNS::Topic', topicArn)];
  const key = String(iam.resolve(topic?.Properties?.KmsMasterKeyId));
  return {
    /** The committer: the function of the Commit task, the only one that writes the tables. */
    committer: taskFunction('commit', STATE_NAMES.commit),
    stateMachineArn: iam.arnOf(smId),
    stateMachineRole: iam.role(iam.resolve(sm.Properties?.RoleArn) as string, 'states'),
    functions,
    alarmTopicArn: topicArn,
    alarmTopicKeyArn: key.startsWith('arn:') ? key : `arn:aws:kms:${REGION}:${ACCOUNT}:key/${key}`,
  };
}

interface Row {
  who: string;
  principal: RolePrincipal;
  why: string;
  call: string;
  permission: IamPermission;
}

function rows(who: string, principal: RolePrincipal, calls: readonly DeclaredCall[]): Row[] {
  return calls.flatMap((c) =>
    c.permissions.map((permission) => ({ who, principal, why: c.why, call: c.call, permission })),
  );
}

/** One row per distinct permission (many steps need the same one); the first step names it. */
function distinct(all: readonly Row[]): Row[] {
  const seen = new Map<string, Row>();
  for (const r of all) {
    const p = r.permission;
    const key = `${r.who} ${p.action} ${p.resource} ${JSON.stringify(p.context ?? {})}`;
    if (!seen.has(key)) seen.set(key, r);
  }
  return [...seen.values()];
}

// Prepare (at collection: the tables are built from the synthesized template).
// dataStartDate: required by the configuration; any date gives the same IAM.
const iam = new TemplateIam(
  synthStack({ dataStartDate: '2021-06-01' }).toJSON() as ConstructorParameters<typeof TemplateIam>[0],
);
const deployment = readDeployment(iam);
const fn = (name: WorkflowFunctionName) => {
  const found = deployment.functions.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no function ${name}`);
  return found;
};
const functionCalls = deployment.functions.map((f) => ({ f, calls: functionAwsCalls(f.name, f.env) }));
const stateMachine = deployment.stateMachineRole;

/**
 * A declared permission the stack refuses by design: Finalize's s3:ListBucket, which a read
 * of a key that may be missing asks for (S3 answers 404 only to a caller allowed it).
 * Finalize reads one key, the sync's report, and a missing report reads as refused: the
 * record says "unreadable" either way, and Finalize is never let list the lake.
 */
const refusedByDesign = (who: string, p: IamPermission): boolean =>
  who === 'finalize' && p.action === 's3:ListBucket' && p.context?.['s3:prefix'] === undefined;

const DECLARED: Row[] = distinct([
  ...functionCalls.flatMap(({ f, calls }) =>
    rows(f.name, f.role, [...calls, ...lambdaRuntimeCalls(f.logGroupArn)]),
  ),
  ...rows(
    'stateMachine',
    stateMachine,
    stateMachineAwsCalls({
      stateMachineArn: deployment.stateMachineArn,
      functionArns: Object.fromEntries(deployment.functions.map((f) => [f.name, f.arn])) as Record<
        WorkflowFunctionName,
        string
      >,
      alarmTopicArn: deployment.alarmTopicArn,
      alarmTopicKeyArn: deployment.alarmTopicKeyArn,
    }),
  ),
]);
const ALLOWED = DECLARED.filter((r) => !refusedByDesign(r.who, r.permission));
const REFUSED_BY_DESIGN = DECLARED.filter((r) => refusedByDesign(r.who, r.permission)).map((r) => ({
  ...r,
  expected: 'ImplicitlyDenied' as EvaluationResult,
}));

// The keys and ARNs the refusals are about: the lake's, a part, another bucket, another secret.
const exporter = fn('exportResults');
const lake = parseS3Uri('OBJECT_STORE_URI', exporter.env.OBJECT_STORE_URI);
const reportId = (JSON.parse(exporter.env.REPORTS) as { id: string }[])[0]?.id ?? '';
const layout = {
  prefix: lake.prefix,
  dataset: 'calls',
  reportId,
  csvExtension: '.csv',
} as const;
const part = `arn:aws:s3:::${lake.bucket}/${partKey(layout, 'parquet', '2026-11-18', 0)}`;
const manifest = `arn:aws:s3:::${lake.bucket}/${manifestKey(layout, 'parquet', '2026-11-18')}`;
const otherBuckets = iam
  .ofType('AWS::S3::Bucket')
  .map(([id]) => iam.arnOf(id))
  .filter((arn) => arn !== `arn:aws:s3:::${lake.bucket}`);
const otherSecret = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:another-service-AbCdEf`;
const ownSecret = exporter.env.SECRET_URI;
const otherStateMachine = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:AnotherWorkflow`;

const deny = (
  who: WorkflowFunctionName | 'stateMachine',
  why: string,
  action: string,
  resource: string,
  expected: EvaluationResult = 'ImplicitlyDenied',
  context?: Record<string, string>,
) => ({
  who,
  principal: who === 'stateMachine' ? stateMachine : fn(who).role,
  why,
  permission: { action, resource, ...(context === undefined ? {} : { context }) },
  expected,
});

const DENIED = [
  deny(
    'exportResults',
    'writing outside the lake prefix',
    's3:PutObject',
    `arn:aws:s3:::${lake.bucket}/other/x.parquet`,
  ),
  deny(
    'exportResults',
    'deleting outside the lake prefix',
    's3:DeleteObject',
    `arn:aws:s3:::${lake.bucket}/other/x.parquet`,
  ),
  ...otherBuckets.map((bucket) =>
    deny(
      'exportResults',
      'writing another bucket of the stack',
      's3:PutObject',
      `${bucket}/${lake.prefix}/x.parquet`,
    ),
  ),
  deny(
    'exportResults',
    'writing a bucket outside the stack',
    's3:PutObject',
    'arn:aws:s3:::someone-elses-bucket/lake/x.parquet',
  ),
  deny('exportResults', 'writing the lake without TLS', 's3:PutObject', part, 'ExplicitlyDenied', {
    'aws:SecureTransport': 'false',
  }),
  ...(['requestReport', 'checkStatus', 'exportResults', 'syncDirectories', 'plan', 'finalize'] as const).map(
    (who) => deny(who, 'reading another secret', 'secretsmanager:GetSecretValue', otherSecret),
  ),
  deny(
    'plan',
    'reading the service secret (it never calls the service)',
    'secretsmanager:GetSecretValue',
    ownSecret,
  ),
  deny('finalize', 'writing the service secret', 'secretsmanager:PutSecretValue', ownSecret),
  deny('plan', 'writing the lake', 's3:PutObject', part),
  deny('plan', 'reading the lake', 's3:GetObject', part),
  deny('requestReport', 'writing the lake', 's3:PutObject', part),
  deny('checkStatus', 'deleting parts', 's3:DeleteObject', part),
  deny('finalize', 'deleting parts', 's3:DeleteObject', part),
  deny('finalize', 'writing a part (outside runs/)', 's3:PutObject', part),
  deny('finalize', 'replacing a manifest', 's3:PutObject', manifest),
  deny('finalize', 'reading the lake', 's3:GetObject', part),
  deny('stateMachine', 'starting another state machine', 'states:StartExecution', otherStateMachine),
  deny(
    'stateMachine',
    'invoking a function outside the workflow',
    'lambda:InvokeFunction',
    `arn:aws:lambda:${REGION}:${ACCOUNT}:function:another`,
  ),
  deny(
    'stateMachine',
    'publishing to another topic',
    'sns:Publish',
    `arn:aws:sns:${REGION}:${ACCOUNT}:another-topic`,
  ),
  ...WORKFLOW_FUNCTIONS.map((who) =>
    deny(who, 'starting an execution', 'states:StartExecution', deployment.stateMachineArn),
  ),
];

// The Iceberg commit (tableFormat 'iceberg', the default): ExportResults reads the table
// (GetTable: metadata_location and VersionId), writes data files, manifests, the manifest
// list and the new metadata file under the table's location, swaps the metadata location
// (UpdateTable with the VersionId read) and deletes what a failed attempt wrote. Glue's
// optimizers act on the same files and tables in the roles the stack gives them.
const DATABASE = ((exporter.env as { TABLE_CATALOG?: string }).TABLE_CATALOG ?? '').replace(/^glue:/, '');
const glueArn = (resource: string) => `arn:aws:glue:${REGION}:${ACCOUNT}:${resource}`;
const GLUE = {
  catalog: glueArn('catalog'),
  database: glueArn(`database/${DATABASE}`),
  calls: glueArn(`table/${DATABASE}/calls`),
  summaries: glueArn(`table/${DATABASE}/summaries`),
  contacts: glueArn(`table/${DATABASE}/contacts`),
  contact_phones: glueArn(`table/${DATABASE}/contact_phones`),
  runs: glueArn(`table/${DATABASE}/runs`),
  otherTable: glueArn(`table/${DATABASE}/other`),
  otherDatabase: glueArn('database/other_db'),
  otherDatabaseCalls: glueArn('table/other_db/calls'),
};
const objectArn = (key: string) => `arn:aws:s3:::${lake.bucket}/${key}`;
/**
 * Keys of one commit to a table: a data file (a report's day, or a directory's partition as
 * the directory sync names its files), a manifest, a manifest list, a metadata file.
 */
const tableKeys = (dataset: LakeTableName) => {
  const root = tableRootKey(lake.prefix, dataset);
  return {
    root,
    data: isContactTable(dataset)
      ? `${directoryDataPrefix(root, undefined, SAMPLE.directoryId)}/${SAMPLE.runId}-${SAMPLE.attempt}-${SAMPLE.contentId}.parquet`
      : `${root}/data/report_id=${reportId}/dt=2026-11-18/req-7f3a-0a1b2c3d-0a1b2c3d-00000.parquet`,
    manifest: `${root}/metadata/3f1c2d4e-0a1b-4c5d-8e9f-0a1b2c3d4e5f-m0.avro`,
    manifestList: `${root}/metadata/snap-1234567890123-1-3f1c2d4e-0a1b-4c5d-8e9f-0a1b2c3d4e5f.avro`,
    metadata: `${root}/metadata/00002-3f1c2d4e-0a1b-4c5d-8e9f-0a1b2c3d4e5f.metadata.json`,
  };
};
const permission = (action: string, resource: string, context?: Record<string, string>): IamPermission => ({
  action,
  resource,
  ...(context === undefined ? {} : { context }),
});

/** The optimizers' roles, by type, from the optimizers the template declares. */
const optimizerRoles = new Map<string, RolePrincipal>(
  iam.ofType('AWS::Glue::TableOptimizer').map(([, o]) => {
    const p = o.Properties as { Type: string; TableOptimizerConfiguration: { RoleArn: unknown } };
    return [p.Type, iam.role(iam.resolve(p.TableOptimizerConfiguration.RoleArn) as string, 'glue')];
  }),
);
const optimizer = (type: string): RolePrincipal => {
  const role = optimizerRoles.get(type);
  if (role === undefined) throw new Error(`no ${type} optimizer in the template`);
  return role;
};

/** What one call of the stores' table needs on a target (lib/stores/aws-calls.ts). */
const needs = (call: AwsCallName, target: unknown): readonly IamPermission[] =>
  (AWS_CALLS[call].permissions as (t: unknown) => readonly IamPermission[])(target);

/** The request headers of a create-only write (`If-None-Match: *`). */
const CREATE_ONLY = { 's3:if-none-match': '*' };
/** A PutObject or CompleteMultipartUpload with `If-None-Match: *`. */
const CREATE_FILE = { 's3:if-none-match': '*', 's3:ObjectCreationOperation': 'true' };
/** A multipart upload's CreateMultipartUpload or UploadPart (no conditional header). */
const UPLOAD_PART = { 's3:ObjectCreationOperation': 'false' };
/** An object-creating request without If-None-Match: it may replace an object. */
const OVERWRITE = { 's3:ObjectCreationOperation': 'true' };
const committer = deployment.committer;
const syncer = fn('syncDirectories');

/**
 * The commit (one committer: the Commit function's role), expanded through the stores' own
 * tables: the Glue catalog's `load` and `commit` on the table, the metadata read, deleted
 * (a commit that did not land) and created only (If-None-Match), the data files read (sizes,
 * footers). And ExportResults's part: its data files written, the tables only read. Not the
 * catalog's `create`: the stack creates the tables (refused below).
 */
const commitRows = (dataset: LakeTableName): Row[] => {
  const k = tableKeys(dataset);
  const table = { region: REGION, account: ACCOUNT, database: DATABASE, table: dataset };
  const glue = STORE_OPERATION_CALLS.glueCatalog;
  const s3 = STORE_OPERATION_CALLS.s3Store;
  const bucket = lake.bucket;
  const as =
    (who: string, principal: RolePrincipal, why: string) =>
    (c: { call: AwsCallName; target: unknown; context?: Record<string, string> }) =>
      needs(c.call, c.target).map((p) => ({
        who,
        principal,
        why,
        call: c.call,
        permission: { ...p, ...(c.context === undefined ? {} : { context: { ...p.context, ...c.context } }) },
      }));
  const metadataKeys = [k.manifest, k.manifestList, k.metadata];
  const committed = [
    ...[...glue.load, ...glue.commit].map((call) => ({ call, target: table })),
    ...metadataKeys.flatMap((key) => [
      ...s3.putIfAbsent.map((call) => ({ call, target: { bucket, key }, context: CREATE_ONLY })),
      ...[...s3.get, ...s3.head, ...s3.deleteMany].map((call) => ({ call, target: { bucket, key } })),
    ]),
    ...[...s3.get, ...s3.head].map((call) => ({ call, target: { bucket, key: k.data } })),
    ...s3.list.map((call) => ({ call, target: { bucket, prefix: `${k.root}/metadata/` } })),
  ].flatMap(as('commit', committer.role, `commit to the ${dataset} table`));
  // The data files' writer: ExportResults the reports', SyncDirectories the directories'
  // (one putIfAbsent per file, a partition's files read back: lib/export/contacts/sync.ts).
  const writer = isContactTable(dataset)
    ? { who: 'syncDirectories', role: syncer.role, writes: [...s3.putIfAbsent, ...s3.get] }
    : { who: 'exportResults', role: exporter.role, writes: [...s3.putFileIfAbsent, ...s3.get] };
  const exported = [
    ...glue.load.map((call) => ({ call, target: table })),
    // Data files created only (If-None-Match, multipart too), never deleted (orphans instead).
    ...writer.writes.map((call) => ({ call, target: { bucket, key: k.data } })),
    ...metadataKeys.flatMap((key) => s3.get.map((call) => ({ call, target: { bucket, key } }))),
  ].flatMap(as(writer.who, writer.role, `write ${dataset} data files, read the table`));
  return [...committed, ...exported];
};

const optimizerRows = (type: string, dataset: LakeTableName): Row[] => {
  const k = tableKeys(dataset);
  const commits = type !== 'orphan_file_deletion';
  const row = (p: IamPermission): Row => ({
    who: `${type} optimizer`,
    principal: optimizer(type),
    why: `maintain the ${dataset} table`,
    call: p.action,
    permission: p,
  });
  const logGroup =
    { compaction: 'iceberg-compaction', retention: 'iceberg-retention' }[type] ??
    'iceberg-orphan-file-deletion';
  return [
    row(permission('glue:GetTable', GLUE[dataset])),
    ...(commits ? [row(permission('glue:UpdateTable', GLUE[dataset]))] : []),
    row(permission('s3:GetObject', objectArn(k.data))),
    row(permission('s3:DeleteObject', objectArn(k.data))),
    ...(commits ? [row(permission('s3:PutObject', objectArn(k.metadata)))] : []),
    // Compaction and retention write data files as Glue does, without If-None-Match.
    ...(commits ? [row(permission('s3:PutObject', objectArn(k.data), OVERWRITE))] : []),
    row(permission('s3:ListBucket', `arn:aws:s3:::${lake.bucket}`, { 's3:prefix': `${k.root}/` })),
    row(
      permission(
        'logs:PutLogEvents',
        `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:/aws-glue/${logGroup}/logs:log-stream:run-1`,
      ),
    ),
  ];
};

const TABLE_ALLOWED: Row[] = [
  ...ICEBERG_TABLES.flatMap(commitRows),
  ...['compaction', 'retention', 'orphan_file_deletion'].flatMap((type) =>
    ICEBERG_TABLES.flatMap((table) => optimizerRows(type, table)),
  ),
];

const refuse = (
  who: string,
  principal: RolePrincipal,
  why: string,
  action: string,
  resource: string,
  expected: EvaluationResult = 'ImplicitlyDenied',
  context?: Record<string, string>,
) => ({
  who,
  principal,
  why,
  permission: permission(action, resource, context),
  expected,
});
const hiveLayoutPart = objectArn(partKey(layout, 'parquet', '2026-11-18', 0));
/** A refusal of ExportResults' role. */
const exportRefuses = (
  why: string,
  action: string,
  resource: string,
  expected: EvaluationResult = 'ImplicitlyDenied',
  context?: Record<string, string>,
) => refuse('exportResults', exporter.role, why, action, resource, expected, context);
/** A refusal of the committer's role. */
const committerRefuses = (why: string, action: string, resource: string, context?: Record<string, string>) =>
  refuse('commit', committer.role, why, action, resource, 'ImplicitlyDenied', context);
/**
 * A principal whose own policy allows every S3 action (an operator's role), against the
 * bucket policy alone: a create-only metadata write passes; an overwrite or a deletion does not.
 */
const operator: RolePrincipal = {
  logicalId: 'Operator',
  roleArn: `arn:aws:iam::${ACCOUNT}:role/Operator`,
  sessionArn: `arn:aws:sts::${ACCOUNT}:assumed-role/Operator/someone`,
  policies: [
    { name: 's3-admin', policy: { Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: '*' }] } },
  ],
};
const metadataKeys = ICEBERG_TABLES.flatMap((d) => {
  const k = tableKeys(d);
  return [k.metadata, k.manifest, k.manifestList].map(objectArn);
});
/** One committer: what ExportResults, the committer and any other principal may not do to the tables. */
const ONE_COMMITTER = [
  ...[GLUE.catalog, GLUE.database, ...ICEBERG_TABLES.map((t) => GLUE[t])].map((arn) =>
    exportRefuses('moving a table pointer (the committer does)', 'glue:UpdateTable', arn, 'ExplicitlyDenied'),
  ),
  ...metadataKeys.flatMap((key) => [
    exportRefuses('overwriting table metadata', 's3:PutObject', key, 'ExplicitlyDenied'),
    exportRefuses(
      'creating table metadata (the committer does)',
      's3:PutObject',
      key,
      'ExplicitlyDenied',
      CREATE_ONLY,
    ),
    exportRefuses('deleting table metadata', 's3:DeleteObject', key, 'ExplicitlyDenied'),
    committerRefuses('overwriting table metadata (no If-None-Match)', 's3:PutObject', key),
    refuse(
      'operator',
      operator,
      'overwriting table metadata (bucket policy)',
      's3:PutObject',
      key,
      'ExplicitlyDenied',
    ),
    refuse(
      'operator',
      operator,
      'deleting table metadata (bucket policy)',
      's3:DeleteObject',
      key,
      'ExplicitlyDenied',
    ),
    refuse(
      'operator',
      operator,
      'creating table metadata (If-None-Match)',
      's3:PutObject',
      key,
      'Allowed',
      CREATE_ONLY,
    ),
  ]),
  ...ICEBERG_TABLES.flatMap((d) => {
    const request = objectArn(
      `${tableKeys(d).root}/commit-requests/01a21a02-945e-7062-bcd7-fff413916338.json`,
    );
    return [
      exportRefuses(
        'writing a commit request (committers only)',
        's3:PutObject',
        request,
        'ExplicitlyDenied',
      ),
      exportRefuses(
        'deleting a commit request (committers only)',
        's3:DeleteObject',
        request,
        'ExplicitlyDenied',
      ),
      refuse('commit', committer.role, 'a grouped commit request', 's3:PutObject', request, 'Allowed'),
    ];
  }),
  committerRefuses(
    'writing a data file (the run writes them)',
    's3:PutObject',
    objectArn(tableKeys('calls').data),
  ),
  // Data files are created only (finding 1 of the committer's review): a committed file is
  // never replaced nor deleted but by Glue's optimizers, whatever a role's own policy says.
  ...ICEBERG_TABLES.flatMap((d) => {
    const data = objectArn(tableKeys(d).data);
    return [
      exportRefuses('deleting a data file', 's3:DeleteObject', data, 'ExplicitlyDenied'),
      exportRefuses('deleting a version of a data file', 's3:DeleteObjectVersion', data, 'ExplicitlyDenied'),
      exportRefuses('replacing a data file (no If-None-Match)', 's3:PutObject', data, 'ExplicitlyDenied'),
      exportRefuses(
        'replacing a data file (object-creating, no If-None-Match)',
        's3:PutObject',
        data,
        'ExplicitlyDenied',
        OVERWRITE,
      ),
      refuse(
        'exportResults',
        exporter.role,
        'creating a data file',
        's3:PutObject',
        data,
        'Allowed',
        CREATE_FILE,
      ),
      refuse(
        'exportResults',
        exporter.role,
        'a multipart step of a new data file',
        's3:PutObject',
        data,
        'Allowed',
        UPLOAD_PART,
      ),
      committerRefuses('deleting a data file', 's3:DeleteObject', data),
      refuse(
        'operator',
        operator,
        'deleting a data file (bucket policy)',
        's3:DeleteObject',
        data,
        'ExplicitlyDenied',
      ),
      refuse(
        'operator',
        operator,
        'deleting a version of a data file (bucket policy)',
        's3:DeleteObjectVersion',
        data,
        'ExplicitlyDenied',
      ),
      refuse(
        'operator',
        operator,
        'replacing a data file (bucket policy)',
        's3:PutObject',
        data,
        'ExplicitlyDenied',
      ),
      refuse(
        'operator',
        operator,
        'replacing a data file (object-creating, bucket policy)',
        's3:PutObject',
        data,
        'ExplicitlyDenied',
        OVERWRITE,
      ),
      refuse(
        'operator',
        operator,
        'creating a data file (If-None-Match)',
        's3:PutObject',
        data,
        'Allowed',
        CREATE_FILE,
      ),
      refuse(
        'operator',
        operator,
        'a multipart step of a new data file',
        's3:PutObject',
        data,
        'Allowed',
        UPLOAD_PART,
      ),
      refuse(
        'orphan_file_deletion optimizer',
        optimizer('orphan_file_deletion'),
        'replacing a data file (it only deletes)',
        's3:PutObject',
        data,
        'ExplicitlyDenied',
        OVERWRITE,
      ),
    ];
  }),
  committerRefuses('reading the service secret', 'secretsmanager:GetSecretValue', ownSecret),
  committerRefuses('changing the run records table', 'glue:UpdateTable', GLUE.runs),
  committerRefuses('creating a table', 'glue:CreateTable', GLUE.database),
  committerRefuses(
    'writing outside the lake prefix',
    's3:PutObject',
    `arn:aws:s3:::${lake.bucket}/other/x.json`,
  ),
];
const TABLE_DENIED = [
  exportRefuses('committing to another table of the database', 'glue:UpdateTable', GLUE.otherTable),
  exportRefuses('changing the run records table', 'glue:UpdateTable', GLUE.runs),
  exportRefuses('a table of another database', 'glue:UpdateTable', GLUE.otherDatabaseCalls),
  exportRefuses('changing another database', 'glue:UpdateDatabase', GLUE.otherDatabase),
  exportRefuses('deleting a table (the stack owns them)', 'glue:DeleteTable', GLUE.calls, 'ExplicitlyDenied'),
  ...[GLUE.calls, GLUE.database].map((arn) =>
    exportRefuses('creating a table (the stack creates them)', 'glue:CreateTable', arn, 'ExplicitlyDenied'),
  ),
  ...(['plan', 'requestReport', 'checkStatus', 'finalize'] as const).flatMap((who) => [
    refuse(
      who,
      fn(who).role,
      'committing to a table (only the committer commits)',
      'glue:UpdateTable',
      GLUE.calls,
    ),
    refuse(
      who,
      fn(who).role,
      'reading a table (ExportResults reads, the committer commits)',
      'glue:GetTable',
      GLUE.summaries,
    ),
  ]),
  ...['compaction', 'retention', 'orphan_file_deletion'].flatMap((type) => [
    refuse(
      `${type} optimizer`,
      optimizer(type),
      'deleting Hive-layout files',
      's3:DeleteObject',
      hiveLayoutPart,
    ),
    refuse(
      `${type} optimizer`,
      optimizer(type),
      'deleting a run record',
      's3:DeleteObject',
      objectArn(`${lake.prefix}/runs/dt=2026-11-18/r.json`),
    ),
    refuse(
      `${type} optimizer`,
      optimizer(type),
      'writing outside the tables',
      's3:PutObject',
      objectArn(`${lake.prefix}/calls/x.parquet`),
    ),
    refuse(
      `${type} optimizer`,
      optimizer(type),
      'changing the run records table',
      'glue:UpdateTable',
      GLUE.runs,
    ),
    refuse(`${type} optimizer`, optimizer(type), 'deleting a table', 'glue:DeleteTable', GLUE.calls),
    refuse(
      `${type} optimizer`,
      optimizer(type),
      'reading the service secret',
      'secretsmanager:GetSecretValue',
      ownSecret,
    ),
  ]),
  refuse(
    'orphan_file_deletion optimizer',
    optimizer('orphan_file_deletion'),
    'committing (it only deletes)',
    'glue:UpdateTable',
    GLUE.calls,
  ),
  refuse(
    'orphan_file_deletion optimizer',
    optimizer('orphan_file_deletion'),
    'writing (it only deletes)',
    's3:PutObject',
    objectArn(tableKeys('calls').metadata),
  ),
];

/**
 * SyncDirectories (single-tenant): its calls are declared (lib/workflow/aws-calls.ts, in
 * ALLOWED) and its grant spans the lake prefix as ExportResults' does, so it is refused the
 * tables' writes as ExportResults is; Finalize reads and deletes the sync's report and
 * nothing else of the staging area.
 */
const stagedSync = stagedDirectorySyncKey(lake.prefix, undefined, SAMPLE.runId, SAMPLE.directoryId);
const syncReport = directorySyncReportKey(lake.prefix, undefined, SAMPLE.runId);
/** A refusal of SyncDirectories' role. */
const syncRefuses = (
  why: string,
  action: string,
  resource: string,
  expected: EvaluationResult = 'ExplicitlyDenied',
  context?: Record<string, string>,
) => refuse('syncDirectories', syncer.role, why, action, resource, expected, context);
const SYNC_DENIED = [
  ...CONTACT_TABLES.flatMap((t) => {
    const k = tableKeys(t);
    const data = objectArn(k.data);
    return [
      syncRefuses("moving a contact table's pointer (the committer does)", 'glue:UpdateTable', GLUE[t]),
      syncRefuses('creating a contact table (the stack does)', 'glue:CreateTable', GLUE[t]),
      syncRefuses('deleting a contact table', 'glue:DeleteTable', GLUE[t]),
      ...[k.metadata, k.manifest, k.manifestList]
        .map(objectArn)
        .flatMap((key) => [
          syncRefuses('overwriting contact table metadata', 's3:PutObject', key),
          syncRefuses(
            'creating contact table metadata (the committer does)',
            's3:PutObject',
            key,
            'ExplicitlyDenied',
            CREATE_ONLY,
          ),
          syncRefuses('deleting contact table metadata', 's3:DeleteObject', key),
        ]),
      syncRefuses('deleting a contact data file', 's3:DeleteObject', data),
      syncRefuses('deleting a version of a contact data file', 's3:DeleteObjectVersion', data),
      syncRefuses('replacing a contact data file (no If-None-Match)', 's3:PutObject', data),
      syncRefuses(
        'replacing a contact data file (object-creating)',
        's3:PutObject',
        data,
        'ExplicitlyDenied',
        OVERWRITE,
      ),
      syncRefuses(
        'writing a commit request (committers only)',
        's3:PutObject',
        objectArn(`${k.root}/commit-requests/01a21a02-945e-7062-bcd7-fff413916338.json`),
      ),
    ];
  }),
  syncRefuses(
    "writing the committer's record",
    's3:PutObject',
    objectArn(`${lake.prefix}/_commits/${SAMPLE.commitId}.json`),
  ),
  syncRefuses(
    'writing outside the lake prefix',
    's3:PutObject',
    `arn:aws:s3:::${lake.bucket}/other/x.json`,
    'ImplicitlyDenied',
  ),
  ...(['plan', 'requestReport', 'checkStatus'] as const).map((who) =>
    refuse(
      who,
      fn(who).role,
      'reading a contact table (SyncDirectories reads, the committer commits)',
      'glue:GetTable',
      GLUE.contacts,
    ),
  ),
  refuse('finalize', fn('finalize').role, "writing the sync's report", 's3:PutObject', objectArn(syncReport)),
  refuse(
    'finalize',
    fn('finalize').role,
    'reading a staged directory sync',
    's3:GetObject',
    objectArn(stagedSync),
  ),
  // Its deletion is the report's alone: nothing else of the staging area, nor of another tenant's.
  refuse(
    'finalize',
    fn('finalize').role,
    'deleting a staged directory sync (the committer does)',
    's3:DeleteObject',
    objectArn(stagedSync),
  ),
  refuse(
    'finalize',
    fn('finalize').role,
    'deleting a staged run (the committer does)',
    's3:DeleteObject',
    objectArn(stagedRunKey({ prefix: lake.prefix }, SAMPLE.runId)),
  ),
  refuse(
    'finalize',
    fn('finalize').role,
    "deleting a tenant's sync report (a multi-tenant layout's, in no session)",
    's3:DeleteObject',
    objectArn(directorySyncReportKey(lake.prefix, 'acme', SAMPLE.runId)),
  ),
  ...REFUSED_BY_DESIGN,
];

/** A row's test title, whole (vitest shortens `$name` values past 40 characters). */
const titled = <R extends { who: string; why: string; permission: IamPermission }>(all: readonly R[]) =>
  all.map((r): [string, R] => {
    const { action, resource, context } = r.permission;
    const conditions = context === undefined ? '' : ` with ${JSON.stringify(context)}`;
    return [`${r.who} ${action} on ${resource}${conditions} (${r.why})`, r];
  });

describe('IAM of the synthesized stack', () => {
  it.each(titled(ALLOWED))('allows %s', async (_, row) => {
    // Act
    const result = await iam.evaluate(row.principal, row.permission);

    // Assess
    expect(result, `${row.who}: ${row.call} (${row.why})`).toBe('Allowed');
  });

  it.each(titled(TABLE_ALLOWED))('allows %s', async (_, row) => {
    // Act
    const result = await iam.evaluate(row.principal, row.permission);

    // Assess
    expect(result, `${row.who}: ${row.call} (${row.why})`).toBe('Allowed');
  });

  it.each(titled([...DENIED, ...TABLE_DENIED, ...ONE_COMMITTER, ...SYNC_DENIED]))(
    'evaluates %s',
    async (_, row) => {
      // Act
      const result = await iam.evaluate(row.principal, row.permission);

      // Assess
      expect(result).toBe(row.expected);
    },
  );

  it('evaluates every call of the stores for some function when the calls are declared', () => {
    // Act
    const checked = new Set([
      ...functionCalls.flatMap(({ calls }) => calls.map((c) => c.call)),
      ...TABLE_ALLOWED.filter((r) => r.who === 'exportResults' || r.who === 'commit').map((r) => r.call),
    ]);

    // Assess: all but CreateTable, which the deployment refuses (the stack creates the tables),
    // and a tenant's session, which only a multi-tenant stack's functions take
    // (iam-tenants.test.ts evaluates it).
    expect(Object.keys(AWS_CALLS).filter((name) => !checked.has(name))).toEqual([
      'glueCreateTable',
      'stsAssumeRole',
    ]);
  });

  it('finds the three optimizers of each Iceberg table and the catalog the functions commit to', () => {
    // Assess: the reports' tables and the contact tables.
    const optimized = iam
      .ofType('AWS::Glue::TableOptimizer')
      .map(
        ([, o]) =>
          `${(o.Properties as { TableName: string }).TableName} ${(o.Properties as { Type: string }).Type}`,
      );
    expect(optimized.sort()).toEqual(
      ICEBERG_TABLES.flatMap((t) =>
        ['compaction', 'orphan_file_deletion', 'retention'].map((type) => `${t} ${type}`),
      ).sort(),
    );
    expect(optimized).toHaveLength(12);
    expect([...optimizerRoles.keys()].sort()).toEqual(['compaction', 'orphan_file_deletion', 'retention']);
    expect(new Set([...optimizerRoles.values()].map((r) => r.logicalId)).size).toBe(3);
    expect(DATABASE).toBe('report_export');
  });

  it('finds the functions, their roles and the committer when the definition is read', () => {
    // Assess
    const roles = new Set(deployment.functions.map((f) => f.role.logicalId));
    expect(roles.size).toBe(WORKFLOW_FUNCTIONS.length);
    expect(committer.role.logicalId).toBe(fn('commit').role.logicalId);
    expect(syncer.arn).toMatch(/:function:ReportExport-SyncDirectoriesFunction/);
    expect(functionCalls.find(({ f }) => f.name === 'plan')?.calls).toEqual([]);
    expect(ALLOWED.length).toBeGreaterThan(40);
    // The sync's declared calls are evaluated: its contact data files among them, created only.
    const syncCalls = functionCalls.find(({ f }) => f.name === 'syncDirectories')?.calls ?? [];
    expect(
      syncCalls
        .filter((c) => /\/tables\/contact(s|_phones)\/data\//.test(c.permissions[0]?.resource ?? ''))
        .map((c) => c.call),
    ).toEqual(['getObject', 'putObjectIfNoneMatch', 'putObjectIfNoneMatch']);
    // Refused by design: Finalize's listing alone (a missing report reads as unreadable).
    expect(REFUSED_BY_DESIGN.map((r) => `${r.who} ${r.permission.action}`)).toEqual([
      'finalize s3:ListBucket',
    ]);
  });
});
