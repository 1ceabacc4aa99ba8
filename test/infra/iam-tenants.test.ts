import type { EvaluationResult } from '@cloud-copilot/iam-simulate';
import { describe, expect, it } from 'vitest';
import { stagedDirectorySyncKey } from '../../lib/export/publish/staged-directory-sync';
import { directoryDataPrefix } from '../../lib/export/table/snapshot/replace-directories';
import { CONTACT_TABLES, ICEBERG_TABLES, tableMetadataPrefix } from '../../lib/infra/iceberg-tables';
import { TENANT_REGISTRY_PREFIX } from '../../lib/infra/report-export-stack';
import { DIGEST_FUNCTION_ID } from '../../lib/infra/state-names';
import { TENANT_VARIABLE, tenantPrefixes, tenantSecretName } from '../../lib/infra/tenant-access';
import { tableRootKey } from '../../lib/stores';
import { AWS_CALLS, type AwsCallName, type IamPermission } from '../../lib/stores/aws-calls';
import { parseS3Uri } from '../../lib/stores/from-uri';
import {
  type DeclaredCall,
  type TenantStoreEnvironment,
  tenantRunAwsCalls,
  WORKFLOW_FUNCTIONS,
  type WorkflowFunctionName,
} from '../../lib/workflow/aws-calls';
import { directorySyncReportKey } from '../../lib/workflow/directory-sync-task';
import { MULTI_TENANT_CONFIG, synthStack } from './stack-synth';
import {
  ACCOUNT,
  REGION,
  type RequestContext,
  type RolePrincipal,
  STACK_NAME,
  TemplateIam,
} from './template-iam';

/**
 * The multi-tenant deployment's isolation, evaluated: a session of the TenantAccess role
 * tagged `tenant=acme` against the keys, secrets and tables the design gives tenant `acme`
 * and tenant `bruin` (lib/infra/README.md, "Many tenants"); the trust that lets only the
 * workflow's functions take the role, and only with a tenant tag; the functions' own roles
 * with no direct access to a tenant's data; the role the tenants' schedules start runs with.
 */

// Prepare (at collection: the rows are built from the synthesized template).
const iam = new TemplateIam(
  synthStack({}, MULTI_TENANT_CONFIG).toJSON() as ConstructorParameters<typeof TemplateIam>[0],
);
/** The workflow's functions by handler, whose calls lib/workflow/aws-calls.ts declares. */
const FUNCTION_NAMES: readonly WorkflowFunctionName[] = WORKFLOW_FUNCTIONS;
const functions = iam.ofType('AWS::Lambda::Function').flatMap(([id, r]) => {
  const env = iam.resolve((r.Properties?.Environment as { Variables?: unknown } | undefined)?.Variables) as
    | Record<string, string>
    | undefined;
  // The night's digest reads records in its own role (never a tenant session, which its role
  // may not take): evaluated in night-digest.test.ts.
  if (env?.TENANT_ROLE_ARN === undefined || id.startsWith(DIGEST_FUNCTION_ID)) return [];
  // The handler by its construct (PlanFunction…, ExportResultsFunction…, WorkflowCommitFunction…).
  const name = FUNCTION_NAMES.find((n) =>
    new RegExp(`^(workflow)?${n.toLowerCase()}function`).test(id.toLowerCase()),
  );
  if (name === undefined) throw new Error(`no workflow function for ${id}`);
  return [{ id, name, env, role: iam.role(iam.resolve(r.Properties?.Role) as string, id) }];
});
const [first] = functions;
if (first === undefined) throw new Error('no workflow function with TENANT_ROLE_ARN');
const env = first.env;
const tenantRoleArn = env.TENANT_ROLE_ARN as string;
const lake = parseS3Uri('OBJECT_STORE_URI', env.OBJECT_STORE_URI as string);
const leases = parseS3Uri('LEASE_STORE_URI', env.LEASE_STORE_URI as string);
const session = (tenant: string) => iam.role(tenantRoleArn, `run-${tenant}`, { tenant });
const acme = session('acme');

const object = (key: string) => `arn:aws:s3:::${lake.bucket}/${key}`;
const secret = (tenant: string, stack = STACK_NAME) =>
  `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${tenantSecretName(stack, tenant)}-AbCdEf`;
const glue = (resource: string) => `arn:aws:glue:${REGION}:${ACCOUNT}:${resource}`;
const secretKeyArn = iam.arnOf(
  iam.ofType('AWS::KMS::Key').find(([id]) => id.startsWith('TenantSecretsKey'))?.[0] ?? '',
);

/** One object of each kind a tenant's run writes, in the design's layout. */
const keysOf = (t: string) => ({
  csv: `${lake.prefix}/calls/format=csv/tenant=${t}/report_id=rep-1/dt=2026-11-18/part-00000.csv`,
  summaryCsv: `${lake.prefix}/summaries/format=csv/tenant=${t}/report_id=rep-2/dt=2026-11-18/part-00000.csv`,
  tableData: `${lake.prefix}/tables/calls/data/tenant=${t}/report_id=rep-1/dt=2026-11-18/req-1-0a1b2c3d-00000.parquet`,
  summaryData: `${lake.prefix}/tables/summaries/data/tenant=${t}/report_id=rep-2/dt=2026-11-18/req-1-0a1b2c3d-00000.parquet`,
  staging: `${lake.prefix}/_staging/tenant=${t}/req-1/calls/format=csv/part-00000.csv`,
  run: `${lake.prefix}/runs/tenant=${t}/dt=2026-11-19/req-1.json`,
  lease: `${leases.prefix}/tenant=${t}/publish/rep-1/2026-11-18.json`,
});
/** A table's commit request of a tenant (lib/export/table/commit-requests.ts: `<UUIDv7>.<tenant>.json`). */
const commitRequest = (t: string, dataset = 'calls') =>
  `${lake.prefix}/tables/${dataset}/commit-requests/01a21a02-945e-7062-bcd7-fff413916338.${t}.json`;
const METADATA = `${lake.prefix}/tables/calls/metadata/00002-3f1c2d4e-0a1b-4c5d-8e9f-0a1b2c3d4e5f.metadata.json`;
const MANIFEST = `${lake.prefix}/tables/summaries/metadata/3f1c2d4e-0a1b-4c5d-8e9f-0a1b2c3d4e5f-m0.avro`;
/** The contact tables' metadata: a metadata file of `contacts`, a manifest list of `contact_phones`. */
const CONTACTS_METADATA = `${tableMetadataPrefix(lake.prefix, 'contacts')}/00003-7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d.metadata.json`;
const PHONES_MANIFEST_LIST = `${tableMetadataPrefix(lake.prefix, 'contact_phones')}/snap-4242424242424-1-7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d.avro`;
/** Shared by every tenant, written by the committer alone: the metadata of every Iceberg table. */
const SHARED_METADATA = [METADATA, MANIFEST, CONTACTS_METADATA, PHONES_MANIFEST_LIST];
const TABLES = [
  'catalog',
  'database/report_export',
  ...ICEBERG_TABLES.map((t) => `table/report_export/${t}`),
].map((r) => glue(r));
/** A tenant's staged run (lib/export: `<prefix>/_staging/tenant=<t>/<runId>/_staged-run.json`). */
const stagedRun = (t: string) => `${lake.prefix}/_staging/tenant=${t}/req-1/_staged-run.json`;
/** The committer's record of a commit (`<prefix>/_commits/tenant=<t>/<commit id>.json`). */
const commitRecord = (t: string) =>
  `${lake.prefix}/_commits/tenant=${t}/0a1b2c3d4e5f60718293a4b5c6d7e8f9.json`;
/** The request headers of a create-only write (`If-None-Match: *`). */
const CREATE_ONLY = { 's3:if-none-match': '*' };
/** A PutObject or CompleteMultipartUpload that creates only: If-None-Match, an object-creating request. */
const CREATE_FILE = { 's3:if-none-match': '*', 's3:ObjectCreationOperation': 'true' };
/** A multipart upload's CreateMultipartUpload or UploadPart: no conditional header, creates nothing. */
const UPLOAD_PART = { 's3:ObjectCreationOperation': 'false' };
/** A plain PutObject (or CompleteMultipartUpload) without If-None-Match: it may replace a file. */
const OVERWRITE = { 's3:ObjectCreationOperation': 'true' };

interface Row {
  who: string;
  principal: RolePrincipal;
  why: string;
  action: string;
  resource: string;
  context?: RequestContext;
  expected: EvaluationResult;
}
const row = (
  who: string,
  principal: RolePrincipal,
  why: string,
  action: string,
  resource: string,
  expected: EvaluationResult,
  context?: RequestContext,
): Row => ({
  who,
  principal,
  why,
  action,
  resource,
  expected,
  ...(context === undefined ? {} : { context }),
});
const acmeMay = (why: string, action: string, resource: string, context?: RequestContext) =>
  row('acme session', acme, why, action, resource, 'Allowed', context);
const acmeMayNot = (why: string, action: string, resource: string, context?: RequestContext) =>
  row('acme session', acme, why, action, resource, 'ImplicitlyDenied', context);

const own = keysOf('acme');
/** The kinds of keysOf that are table data files: created only, never replaced or deleted. */
const DATA_KINDS: readonly string[] = ['tableData', 'summaryData'];
/** The kinds of keysOf that are its published CSV: read only (the committer promotes it). */
const CSV_KINDS: readonly string[] = ['csv', 'summaryCsv'];
const other = keysOf('bruin');
const ALLOWED: Row[] = [
  acmeMay('read its registry entry', 's3:GetObject', object(`${TENANT_REGISTRY_PREFIX}/acme.json`)),
  ...['GetSecretValue', 'PutSecretValue', 'DescribeSecret'].map((a) =>
    acmeMay('use its secret', `secretsmanager:${a}`, secret('acme')),
  ),
  ...Object.entries(own)
    .filter(([kind]) => !DATA_KINDS.includes(kind) && !CSV_KINDS.includes(kind))
    .flatMap(([kind, key]) =>
      ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'].map((a) => acmeMay(`its ${kind}`, a, object(key))),
    ),
  ...[own.csv, own.summaryCsv].map((key) => acmeMay('read its published CSV', 's3:GetObject', object(key))),
  ...[own.tableData, own.summaryData].flatMap((key) => [
    acmeMay('read its data file', 's3:GetObject', object(key)),
    acmeMay('create its data file (If-None-Match)', 's3:PutObject', object(key), CREATE_FILE),
    acmeMay(
      'start and send parts of a multipart upload of its data file',
      's3:PutObject',
      object(key),
      UPLOAD_PART,
    ),
  ]),
  acmeMay('abort an upload of its data file', 's3:AbortMultipartUpload', object(own.tableData)),
  ...tenantPrefixes({ prefix: lake.prefix, leasePrefix: leases.prefix, registryPrefix: '' }, 'acme').map(
    (p) =>
      acmeMay('list its prefix', 's3:ListBucket', `arn:aws:s3:::${lake.bucket}`, { 's3:prefix': `${p}/` }),
  ),
  ...SHARED_METADATA.map((key) => acmeMay('read the shared table metadata', 's3:GetObject', object(key))),
  ...TABLES.map((arn) =>
    acmeMay('read the tables (the shrink guard, the shape check)', 'glue:GetTable', arn),
  ),
  acmeMay('write its staged run, in its own staging', 's3:PutObject', object(stagedRun('acme'))),
];

/**
 * One committer (issue 28): a tenant's session writes no table metadata, moves no table's
 * pointer and reads, writes or deletes no commit request, its own or another's. The bucket
 * policy refuses an overwrite (no If-None-Match) or a deletion of metadata explicitly, whatever
 * a role's own policy says; a create-only write is refused for want of a grant.
 */
const acmeRefused = (why: string, action: string, resource: string, context?: RequestContext) =>
  row('acme session', acme, why, action, resource, 'ExplicitlyDenied', context);
const TENANT_TABLE_REFUSALS: Row[] = [
  // Its published CSV is the committer's to write, from the checked staged run.
  ...[own.csv, own.summaryCsv].flatMap((key) =>
    ['s3:PutObject', 's3:DeleteObject'].map((a) =>
      acmeMayNot('replace or delete its published CSV (the committer promotes it)', a, object(key)),
    ),
  ),
  ...SHARED_METADATA.flatMap((key) => [
    acmeRefused('overwrite the shared table metadata (bucket policy)', 's3:PutObject', object(key)),
    acmeMayNot(
      'create table metadata (only the committer writes it)',
      's3:PutObject',
      object(key),
      CREATE_ONLY,
    ),
    acmeRefused('delete the shared table metadata (bucket policy)', 's3:DeleteObject', object(key)),
  ]),
  ...TABLES.flatMap((arn) =>
    ['glue:UpdateTable', 'glue:CreateTable', 'glue:DeleteTable'].map((a) =>
      acmeMayNot("move a table's pointer or redefine it", a, arn),
    ),
  ),
  ...ICEBERG_TABLES.flatMap((dataset) => [
    ...['acme', 'bruin'].flatMap((t) =>
      ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'].flatMap((a) => [
        acmeMayNot(`${t}'s commit request (committers only)`, a, object(commitRequest(t, dataset))),
        acmeMayNot(
          `${t}'s set-aside commit request (committers only)`,
          a,
          object(commitRequest(t, dataset).replace('/commit-requests/', '/commit-requests-invalid/')),
        ),
      ]),
    ),
    acmeMayNot("list a table's commit requests", 's3:ListBucket', `arn:aws:s3:::${lake.bucket}`, {
      's3:prefix': `${lake.prefix}/tables/${dataset}/commit-requests/`,
    }),
  ]),
  ...['s3:GetObject', 's3:PutObject', 's3:DeleteObject'].map((a) =>
    acmeMayNot("the committer's record of its commit", a, object(commitRecord('acme'))),
  ),
  acmeMayNot("bruin's staged run", 's3:PutObject', object(stagedRun('bruin'))),
  // Its own data files, once written, are the tables' (finding 1 of the committer's review):
  // no deletion, no replacement, whatever the role's policy says (the bucket policy refuses).
  ...[own.tableData, own.summaryData].flatMap((key) => [
    acmeRefused('delete its committed data file (bucket policy)', 's3:DeleteObject', object(key)),
    acmeRefused('delete a version of its data file (bucket policy)', 's3:DeleteObjectVersion', object(key)),
    acmeRefused('replace its data file (no If-None-Match)', 's3:PutObject', object(key)),
    acmeRefused(
      'replace its data file (a put without If-None-Match)',
      's3:PutObject',
      object(key),
      OVERWRITE,
    ),
    acmeRefused('replace its data file (a copy onto it)', 's3:PutObject', object(key), {
      ...OVERWRITE,
      's3:x-amz-copy-source': `${lake.bucket}/${own.csv}`,
    }),
  ]),
  ...[other.tableData, other.summaryData].flatMap((key) => [
    acmeMayNot("create bruin's data file", 's3:PutObject', object(key), CREATE_FILE),
    acmeMayNot("start a multipart upload of bruin's data file", 's3:PutObject', object(key), UPLOAD_PART),
    acmeMayNot("read bruin's data file", 's3:GetObject', object(key)),
  ]),
];

const DENIED: Row[] = [
  acmeMayNot("read bruin's registry entry", 's3:GetObject', object(`${TENANT_REGISTRY_PREFIX}/bruin.json`)),
  acmeMayNot('write its own registry entry', 's3:PutObject', object(`${TENANT_REGISTRY_PREFIX}/acme.json`)),
  acmeMayNot('list the registry', 's3:ListBucket', `arn:aws:s3:::${lake.bucket}`, {
    's3:prefix': `${TENANT_REGISTRY_PREFIX}/`,
  }),
  ...['GetSecretValue', 'PutSecretValue', 'DescribeSecret'].map((a) =>
    acmeMayNot("use bruin's secret", `secretsmanager:${a}`, secret('bruin')),
  ),
  acmeMayNot(
    "read another stack's secret of the same tenant",
    'secretsmanager:GetSecretValue',
    secret('acme', 'Other'),
  ),
  acmeMayNot(
    'read a secret of no tenant',
    'secretsmanager:GetSecretValue',
    secret('acme').replace('/tenants/', '/'),
  ),
  ...Object.entries(other).flatMap(([kind, key]) =>
    ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'].map((a) =>
      // A data file's overwrite or deletion is refused by the bucket policy too.
      DATA_KINDS.includes(kind) && a !== 's3:GetObject'
        ? acmeRefused(`bruin's ${kind}`, a, object(key))
        : acmeMayNot(`bruin's ${kind}`, a, object(key)),
    ),
  ),
  ...tenantPrefixes({ prefix: lake.prefix, leasePrefix: leases.prefix, registryPrefix: '' }, 'bruin').map(
    (p) =>
      acmeMayNot("list bruin's prefix", 's3:ListBucket', `arn:aws:s3:::${lake.bucket}`, {
        's3:prefix': `${p}/`,
      }),
  ),
  acmeMayNot('list the whole lake', 's3:ListBucket', `arn:aws:s3:::${lake.bucket}`, {
    's3:prefix': `${lake.prefix}/`,
  }),
  acmeMayNot(
    "write into bruin's partition under a key that ends in its own segment",
    's3:PutObject',
    object(`${lake.prefix}/calls/format=csv/tenant=bruin/report_id=rep-1/dt=2026-11-18/tenant=acme/x.csv`),
  ),
  acmeMayNot('a prefix of its id (tenant acme-2)', 's3:PutObject', object(keysOf('acme-2').csv)),
  acmeMayNot(
    'Hive-layout Parquet (a multi-tenant lake has tables)',
    's3:PutObject',
    object(
      `${lake.prefix}/calls/format=parquet/tenant=acme/report_id=rep-1/dt=2026-11-18/part-00000.parquet`,
    ),
  ),
  ...TENANT_TABLE_REFUSALS,
  acmeMayNot('change the run records table', 'glue:UpdateTable', glue('table/report_export/runs')),
  acmeMayNot('create a table', 'glue:CreateTable', glue('database/report_export')),
  acmeMayNot('take the role again for bruin', 'sts:AssumeRole', tenantRoleArn, {
    'aws:RequestTag/tenant': 'bruin',
    'aws:TagKeys': ['tenant'],
  }),
];

/**
 * The calls each handler declares for a run of tenant acme (lib/workflow/aws-calls.ts), in
 * acme's session and in the function's own role. Two are refused in the session by design
 * (lib/infra/README.md, "Many tenants"): s3:ListBucket with no prefix, which a read of a key
 * that may be missing asks for (S3 answers 404 only to a caller allowed it; a session lists
 * only its own prefixes, so a missing key reads as 403), and the deletion of a table
 * metadata file of a commit that did not land (shared metadata is never deleted by a
 * tenant's session; the export's clean-up is best effort, Glue's orphan file deletion
 * removes the file).
 */
const refusedByDesign = (p: { action: string; resource: string; context?: RequestContext }): boolean =>
  p.action === 's3:ListBucket' && p.context?.['s3:prefix'] === undefined;
const declaredRows = (
  who: string,
  principal: RolePrincipal,
  calls: readonly DeclaredCall[],
  inSession: boolean,
): Row[] =>
  calls.flatMap((c) =>
    c.permissions.map((p) =>
      row(
        who,
        principal,
        c.why,
        p.action,
        p.resource,
        inSession && refusedByDesign(p) ? 'ImplicitlyDenied' : 'Allowed',
        p.context,
      ),
    ),
  );
const declared = functions.map((f) => ({
  f,
  calls: tenantRunAwsCalls(
    f.name,
    f.env as unknown as TenantStoreEnvironment,
    { tenant: 'acme', reports: [{ id: 'rep-1' }, { id: 'rep-2' }] },
    { region: REGION, account: ACCOUNT },
  ),
}));
const DECLARED: Row[] = distinctRows(
  declared.flatMap(({ f, calls }) => [
    ...declaredRows(`${f.name} as acme`, acme, calls.tenantSession, true),
    ...declaredRows(f.name, f.role, calls.ownRole, false),
  ]),
);

/** One row per principal and permission (many steps need the same one). */
function distinctRows(all: readonly Row[]): Row[] {
  const seen = new Map<string, Row>();
  for (const r of all) {
    const key = `${r.principal.sessionArn} ${r.action} ${r.resource} ${JSON.stringify(r.context ?? {})}`;
    if (!seen.has(key)) seen.set(key, r);
  }
  return [...seen.values()];
}

/** The committer: the Commit function, in its own role (never a tenant's session). */
const committerFn = functions.find((f) => f.name === 'commit');
if (committerFn === undefined) throw new Error('no Commit function with TENANT_ROLE_ARN');
const committer = committerFn.role;
/** The functions that act for a tenant in its session (all but the committer). */
const sessionFunctions = functions.filter((f) => f !== committerFn);

/** A function's role taking TenantAccess with a request's tags. */
const assume = (tags: Record<string, string>, expected: EvaluationResult, why: string): Row[] =>
  sessionFunctions.flatMap((f) =>
    ['sts:AssumeRole', 'sts:TagSession'].map((action) =>
      row(f.id, f.role, why, action, tenantRoleArn, expected, {
        ...Object.fromEntries(Object.entries(tags).map(([k, v]) => [`aws:RequestTag/${k}`, v])),
        'aws:TagKeys': Object.keys(tags),
      }),
    ),
  );
const TRUST: Row[] = [
  ...assume({ tenant: 'acme' }, 'Allowed', 'a run of tenant acme'),
  ...assume({ tenant: 'a' }, 'Allowed', 'a one-character tenant id'),
  ...assume({ tenant: `a${'b'.repeat(30)}c` }, 'Allowed', 'a 32-character tenant id'),
  ...assume({}, 'ImplicitlyDenied', 'no tenant tag'),
  ...assume({ tenant: 'acme', team: 'x' }, 'ImplicitlyDenied', 'a second session tag'),
  ...assume({ Tenant: 'acme' }, 'ImplicitlyDenied', 'the tag key in another case'),
  ...[
    ['Acme', 'upper case'],
    ['ac/me', 'a slash'],
    ['acme_1', 'an underscore'],
    ['ac.me', 'a dot'],
    ['-acme', 'a leading hyphen'],
    ['acme-', 'a trailing hyphen'],
    [`a${'b'.repeat(31)}c`, '33 characters'],
  ].flatMap(([tenant, why]) =>
    assume({ tenant: tenant as string }, 'ImplicitlyDenied', `a tenant id with ${why}`),
  ),
];

const FUNCTIONS_DENIED: Row[] = sessionFunctions.flatMap((f) => [
  row(
    f.id,
    f.role,
    "reading a tenant's partition directly",
    's3:GetObject',
    object(own.csv),
    'ImplicitlyDenied',
  ),
  row(
    f.id,
    f.role,
    "writing a tenant's table data directly (no grant; no If-None-Match: the bucket policy)",
    's3:PutObject',
    object(own.tableData),
    'ExplicitlyDenied',
  ),
  row(
    f.id,
    f.role,
    "creating a tenant's data file directly",
    's3:PutObject',
    object(own.tableData),
    'ImplicitlyDenied',
    CREATE_FILE,
  ),
  row(
    f.id,
    f.role,
    "reading a tenant's registry entry directly",
    's3:GetObject',
    object(`${TENANT_REGISTRY_PREFIX}/acme.json`),
    'ImplicitlyDenied',
  ),
  row(
    f.id,
    f.role,
    "reading a tenant's secret directly",
    'secretsmanager:GetSecretValue',
    secret('acme'),
    'ImplicitlyDenied',
  ),
  row(
    f.id,
    f.role,
    "writing a tenant's run record directly",
    's3:PutObject',
    object(own.run),
    'ImplicitlyDenied',
  ),
  row(
    f.id,
    f.role,
    'committing to a table directly',
    'glue:UpdateTable',
    glue('table/report_export/calls'),
    'ImplicitlyDenied',
  ),
  row(f.id, f.role, 'writing a lease directly', 's3:PutObject', object(own.lease), 'ImplicitlyDenied'),
  row(
    f.id,
    f.role,
    "deleting a tenant's sync report directly",
    's3:DeleteObject',
    object(directorySyncReportKey(lake.prefix, 'acme', 'req-1')),
    'ImplicitlyDenied',
  ),
]);

/**
 * The directory sync (issue 29) in a tenant's session, beyond its declared calls (DECLARED):
 * SyncDirectories writes each changed directory's files into its partition of the contact
 * tables, create-only (one putIfAbsent per file: lib/export/contacts/sync.ts), a staged sync
 * per directory and the sync's report in its staging (Finalize deletes the report), and
 * reads the tables (GetTable, their metadata). Another tenant's partitions and staging, a
 * written file, the tables' metadata: refused.
 */
const DIRECTORY_ID = '3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
const RUN_ID = 'req-1';
const directoryKeys = (t: string, directoryId = DIRECTORY_ID) => ({
  /** A data file of each contact table in the directory's partition, as the sync names it. */
  data: CONTACT_TABLES.map(
    (table) =>
      `${directoryDataPrefix(tableRootKey(lake.prefix, table), t, directoryId)}/${RUN_ID}-0a1b2c3d-5d41402abc4b2a76b9719d911017c592.parquet`,
  ),
  partitions: CONTACT_TABLES.map((table) =>
    directoryDataPrefix(tableRootKey(lake.prefix, table), t, directoryId),
  ),
  staged: stagedDirectorySyncKey(lake.prefix, t, RUN_ID, directoryId),
  report: directorySyncReportKey(lake.prefix, t, RUN_ID),
});
/** What one store call needs on an object of the lake (lib/stores/aws-calls.ts). */
const needsOn = (call: AwsCallName, key: string): readonly IamPermission[] =>
  (AWS_CALLS[call].permissions as (t: unknown) => readonly IamPermission[])({ bucket: lake.bucket, key });
const ownSync = directoryKeys('acme');
const bruinSync = directoryKeys('bruin');
const syncFunction = functions.find((f) => f.name === 'syncDirectories');
if (syncFunction === undefined) throw new Error('no SyncDirectories function with TENANT_ROLE_ARN');
const DIRECTORY_SYNC: Row[] = [
  ...ownSync.data.flatMap((key) => [
    // The sync's own request: PutObject with If-None-Match, as the stores' call table has it.
    ...needsOn('putObjectIfNoneMatch', key).map((p) =>
      acmeMay('create its contact data file (putIfAbsent)', p.action, p.resource, p.context),
    ),
    acmeMay('create its contact data file (If-None-Match)', 's3:PutObject', object(key), CREATE_FILE),
    acmeMay('check the size of its contact data file', 's3:GetObject', object(key)),
    acmeRefused('replace its contact data file (no If-None-Match)', 's3:PutObject', object(key)),
    acmeRefused(
      'replace its contact data file (a put without If-None-Match)',
      's3:PutObject',
      object(key),
      OVERWRITE,
    ),
    acmeRefused('delete its contact data file (bucket policy)', 's3:DeleteObject', object(key)),
    acmeRefused('delete a version of its contact data file', 's3:DeleteObjectVersion', object(key)),
  ]),
  ...ownSync.partitions.map((p) =>
    acmeMay("list its directory's partition", 's3:ListBucket', `arn:aws:s3:::${lake.bucket}`, {
      's3:prefix': `${p}/`,
    }),
  ),
  ...['s3:PutObject', 's3:GetObject', 's3:DeleteObject'].flatMap((a) => [
    acmeMay('its staged directory sync, in its own staging', a, object(ownSync.staged)),
    acmeMay("its sync's report, in its own staging", a, object(ownSync.report)),
  ]),
  ...[CONTACTS_METADATA, PHONES_MANIFEST_LIST].flatMap((key) => [
    acmeMay("read the contact tables' metadata", 's3:GetObject', object(key)),
    acmeRefused("overwrite the contact tables' metadata (bucket policy)", 's3:PutObject', object(key)),
    acmeMayNot(
      "create the contact tables' metadata (only the committer writes it)",
      's3:PutObject',
      object(key),
      CREATE_ONLY,
    ),
    acmeRefused("delete the contact tables' metadata (bucket policy)", 's3:DeleteObject', object(key)),
  ]),
  ...CONTACT_TABLES.flatMap((t) => [
    acmeMay(
      'read the contact table (the shrink guard, the shape check)',
      'glue:GetTable',
      glue(`table/report_export/${t}`),
    ),
    ...['glue:UpdateTable', 'glue:CreateTable', 'glue:DeleteTable'].map((a) =>
      acmeMayNot("move a contact table's pointer or redefine it", a, glue(`table/report_export/${t}`)),
    ),
  ]),
  // Bruin's partitions and staging, and keys that look like acme's but are not.
  ...bruinSync.data.flatMap((key) => [
    acmeMayNot("create bruin's contact data file", 's3:PutObject', object(key), CREATE_FILE),
    acmeMayNot("create bruin's contact data file (putIfAbsent)", 's3:PutObject', object(key), CREATE_ONLY),
    acmeMayNot(
      "start a multipart upload of bruin's contact data file",
      's3:PutObject',
      object(key),
      UPLOAD_PART,
    ),
    acmeMayNot("read bruin's contact data file", 's3:GetObject', object(key)),
    acmeRefused("replace bruin's contact data file", 's3:PutObject', object(key)),
    acmeRefused("delete bruin's contact data file", 's3:DeleteObject', object(key)),
  ]),
  ...bruinSync.partitions.map((p) =>
    acmeMayNot("list bruin's directory partition", 's3:ListBucket', `arn:aws:s3:::${lake.bucket}`, {
      's3:prefix': `${p}/`,
    }),
  ),
  ...['s3:PutObject', 's3:GetObject', 's3:DeleteObject'].flatMap((a) => [
    acmeMayNot("bruin's staged directory sync", a, object(bruinSync.staged)),
    acmeMayNot("bruin's sync report", a, object(bruinSync.report)),
  ]),
  ...directoryKeys('acme-2').data.map((key) =>
    acmeMayNot(
      'a contact data file of tenant acme-2 (a prefix of its id)',
      's3:PutObject',
      object(key),
      CREATE_FILE,
    ),
  ),
  acmeMayNot(
    'a contact data file outside any tenant partition',
    's3:PutObject',
    object(
      `${directoryDataPrefix(tableRootKey(lake.prefix, 'contacts'), undefined, DIRECTORY_ID)}/x.parquet`,
    ),
    CREATE_FILE,
  ),
  // The function's own role reaches none of it: only through the session.
  ...[...ownSync.data, ownSync.staged, ownSync.report].map((key) =>
    row(
      syncFunction.id,
      syncFunction.role,
      "writing a tenant's directory sync directly",
      's3:PutObject',
      object(key),
      'ImplicitlyDenied',
      CREATE_FILE,
    ),
  ),
  row(
    syncFunction.id,
    syncFunction.role,
    'reading a contact table directly',
    'glue:GetTable',
    glue('table/report_export/contacts'),
    'ImplicitlyDenied',
  ),
];

/** What the committer's own role may do, for every tenant, and what it may not. */
const committerMay = (why: string, action: string, resource: string, context?: RequestContext) =>
  row('committer', committer, why, action, resource, 'Allowed', context);
const committerMayNot = (why: string, action: string, resource: string, context?: RequestContext) =>
  row('committer', committer, why, action, resource, 'ImplicitlyDenied', context);
const COMMITTER: Row[] = [
  ...SHARED_METADATA.flatMap((key) => [
    committerMay('create table metadata (If-None-Match)', 's3:PutObject', object(key), CREATE_ONLY),
    committerMay('read table metadata', 's3:GetObject', object(key)),
    committerMay('delete the metadata of a commit that did not land', 's3:DeleteObject', object(key)),
    committerMayNot('overwrite table metadata (no If-None-Match)', 's3:PutObject', object(key)),
  ]),
  ...TABLES.flatMap((arn) =>
    ['glue:GetTable', 'glue:UpdateTable'].map((a) => committerMay('commit to the tables', a, arn)),
  ),
  ...['acme', 'bruin'].flatMap((t) => [
    ...['s3:GetObject', 's3:PutObject', 's3:DeleteObject'].map((a) =>
      committerMay(`${t}'s grouped commit request`, a, object(commitRequest(t))),
    ),
    committerMay(
      `set aside ${t}'s invalid request`,
      's3:PutObject',
      object(commitRequest(t).replace('/commit-requests/', '/commit-requests-invalid/')),
    ),
    ...['s3:GetObject', 's3:DeleteObject'].map((a) =>
      committerMay(`${t}'s staged run`, a, object(stagedRun(t))),
    ),
    committerMay(`promote ${t}'s staged CSV`, 's3:GetObject', object(keysOf(t).staging)),
    committerMay(`promote ${t}'s CSV`, 's3:PutObject', object(keysOf(t).csv)),
    committerMay(`take ${t}'s partition lease`, 's3:PutObject', object(keysOf(t).lease)),
    committerMay(`record ${t}'s commit`, 's3:PutObject', object(commitRecord(t))),
    committerMay(`read ${t}'s data files' sizes and footers`, 's3:GetObject', object(keysOf(t).tableData)),
    // The directory syncs a tenant's session staged: read, landed, removed.
    committerMay(`read ${t}'s sync report`, 's3:GetObject', object(directoryKeys(t).report)),
    ...['s3:GetObject', 's3:DeleteObject'].map((a) =>
      committerMay(`${t}'s staged directory sync`, a, object(directoryKeys(t).staged)),
    ),
    ...directoryKeys(t).data.flatMap((key) => [
      committerMay(`read ${t}'s contact data file`, 's3:GetObject', object(key)),
      committerMayNot(
        `create ${t}'s contact data file (the sync writes them)`,
        's3:PutObject',
        object(key),
        CREATE_FILE,
      ),
    ]),
    committerMayNot(
      `write ${t}'s data files (the run writes them)`,
      's3:PutObject',
      object(keysOf(t).tableData),
    ),
    committerMayNot(`create ${t}'s data files`, 's3:PutObject', object(keysOf(t).tableData), CREATE_FILE),
    committerMayNot(`delete ${t}'s data files`, 's3:DeleteObject', object(keysOf(t).tableData)),
    committerMayNot(
      `read ${t}'s registry entry`,
      's3:GetObject',
      object(`${TENANT_REGISTRY_PREFIX}/${t}.json`),
    ),
    committerMayNot(`read ${t}'s secret`, 'secretsmanager:GetSecretValue', secret(t)),
    committerMayNot(`take ${t}'s session`, 'sts:AssumeRole', tenantRoleArn, {
      'aws:RequestTag/tenant': t,
      'aws:TagKeys': ['tenant'],
    }),
  ]),
  committerMayNot('change the run records table', 'glue:UpdateTable', glue('table/report_export/runs')),
  committerMayNot('create a table', 'glue:CreateTable', glue('database/report_export')),
  committerMayNot('write outside the lake', 's3:PutObject', object('other/x.json')),
];

/**
 * The bucket policy, for principals whose own policy allows every S3 action (an operator's
 * role): a create-only metadata write passes, an overwrite or a deletion is refused; Glue's
 * optimizers, which rewrite and expire metadata in their own roles, are not refused.
 */
const operator: RolePrincipal = {
  logicalId: 'Operator',
  roleArn: `arn:aws:iam::${ACCOUNT}:role/Operator`,
  sessionArn: `arn:aws:sts::${ACCOUNT}:assumed-role/Operator/someone`,
  policies: [
    { name: 's3-admin', policy: { Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: '*' }] } },
  ],
};
const optimizerRoles = iam.ofType('AWS::Glue::TableOptimizer').map(([, o]) => {
  const p = o.Properties as { Type: string; TableOptimizerConfiguration: { RoleArn: unknown } };
  return {
    type: p.Type,
    role: iam.role(iam.resolve(p.TableOptimizerConfiguration.RoleArn) as string, 'glue'),
  };
});
const BUCKET_POLICY: Row[] = [
  ...SHARED_METADATA.flatMap((key) => [
    row('operator', operator, 'overwrite table metadata', 's3:PutObject', object(key), 'ExplicitlyDenied'),
    row('operator', operator, 'delete table metadata', 's3:DeleteObject', object(key), 'ExplicitlyDenied'),
    row(
      'operator',
      operator,
      'delete a version of table metadata',
      's3:DeleteObjectVersion',
      object(key),
      'ExplicitlyDenied',
    ),
    row(
      'operator',
      operator,
      'create table metadata (If-None-Match)',
      's3:PutObject',
      object(key),
      'Allowed',
      CREATE_ONLY,
    ),
  ]),
  // The data files: created only, never replaced or deleted but by Glue's optimizers.
  ...[own.tableData, other.summaryData].flatMap((key) => [
    row('operator', operator, 'delete a data file', 's3:DeleteObject', object(key), 'ExplicitlyDenied'),
    row(
      'operator',
      operator,
      'delete a version of a data file',
      's3:DeleteObjectVersion',
      object(key),
      'ExplicitlyDenied',
    ),
    row('operator', operator, 'replace a data file', 's3:PutObject', object(key), 'ExplicitlyDenied'),
    row(
      'operator',
      operator,
      'replace a data file (object-creating, no If-None-Match)',
      's3:PutObject',
      object(key),
      'ExplicitlyDenied',
      OVERWRITE,
    ),
    row('operator', operator, 'create a data file', 's3:PutObject', object(key), 'Allowed', CREATE_FILE),
    row(
      'operator',
      operator,
      'upload a part of a new data file',
      's3:PutObject',
      object(key),
      'Allowed',
      UPLOAD_PART,
    ),
  ]),
  row(
    'operator',
    operator,
    'replace a CSV part (outside the tables)',
    's3:PutObject',
    object(own.csv),
    'Allowed',
  ),
  ...optimizerRoles.flatMap(({ type, role }) => [
    row(
      `${type} optimizer`,
      role,
      'expire or rewrite table metadata',
      's3:DeleteObject',
      object(METADATA),
      'Allowed',
    ),
    // Snapshot retention deletes expired snapshots' files, orphan-file deletion the files no
    // snapshot names; compaction has the same grants as retention (AWS's prerequisites).
    row(`${type} optimizer`, role, 'delete a data file', 's3:DeleteObject', object(own.tableData), 'Allowed'),
    ...(type === 'orphan_file_deletion'
      ? [
          row(
            `${type} optimizer`,
            role,
            'write a data file (it only deletes; the bucket policy refuses too)',
            's3:PutObject',
            object(own.tableData),
            'ExplicitlyDenied',
            OVERWRITE,
          ),
        ]
      : [
          row(`${type} optimizer`, role, 'write table metadata', 's3:PutObject', object(METADATA), 'Allowed'),
          row(
            `${type} optimizer`,
            role,
            'write a data file (compaction rewrites, no If-None-Match)',
            's3:PutObject',
            object(own.tableData),
            'Allowed',
            OVERWRITE,
          ),
        ]),
  ]),
];

/** The role the CLI's per-tenant schedules start runs with. */
const schedulerRoleId = iam
  .ofType('AWS::IAM::Role')
  .find(([id]) => id.startsWith('TenantSchedulesRole'))?.[0];
const scheduler = iam.role(iam.arnOf(schedulerRoleId ?? ''), 'scheduler');
const stateMachineArn = iam.arnOf(iam.ofType('AWS::StepFunctions::StateMachine')[0]?.[0] ?? '');
const dlqArn = iam.arnOf(
  iam.ofType('AWS::SQS::Queue').find(([id]) => id.startsWith('TenantSchedules'))?.[0] ?? '',
);
const SCHEDULER: Row[] = [
  row('scheduler', scheduler, "start a tenant's run", 'states:StartExecution', stateMachineArn, 'Allowed'),
  row('scheduler', scheduler, 'dead-letter a start', 'sqs:SendMessage', dlqArn, 'Allowed'),
  row(
    'scheduler',
    scheduler,
    'start another state machine',
    'states:StartExecution',
    `${stateMachineArn}Other`,
    'ImplicitlyDenied',
  ),
  row(
    'scheduler',
    scheduler,
    'take the TenantAccess role',
    'sts:AssumeRole',
    tenantRoleArn,
    'ImplicitlyDenied',
    {
      'aws:RequestTag/tenant': 'acme',
      'aws:TagKeys': ['tenant'],
    },
  ),
];

const titled = (all: readonly Row[]) =>
  all.map((r): [string, Row] => {
    const conditions = r.context === undefined ? '' : ` with ${JSON.stringify(r.context)}`;
    return [`${r.who} ${r.action} on ${r.resource}${conditions} (${r.why})`, r];
  });

describe('IAM of a multi-tenant stack', () => {
  it.each(
    titled([
      ...DECLARED,
      ...ALLOWED,
      ...DENIED,
      ...TRUST,
      ...FUNCTIONS_DENIED,
      ...DIRECTORY_SYNC,
      ...COMMITTER,
      ...BUCKET_POLICY,
      ...SCHEDULER,
    ]),
  )('evaluates %s', async (_, r) => {
    // Act
    const result = await iam.evaluate(r.principal, {
      action: r.action,
      resource: r.resource,
      ...(r.context === undefined ? {} : { context: r.context }),
    });

    // Assess
    expect(result, `${r.who}: ${r.why}`).toBe(r.expected);
  });

  // Not through the simulator: @cloud-copilot/iam-simulate 0.1.173 does not resolve a
  // condition key whose variable part follows a colon (kms:EncryptionContext:<key>), so it
  // refuses every request such a condition names. The statement is checked as written.
  it("lets a session use the secrets' key only through Secrets Manager, only for its own secret", () => {
    // Act
    const statements = acme.policies.flatMap(
      (p) => p.policy.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[],
    );
    const kms = statements.filter((st) => [st.Action].flat().some((a) => a.startsWith('kms:')));

    // Assess
    expect(kms).toEqual([
      expect.objectContaining({
        Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
        Resource: secretKeyArn,
        Condition: {
          StringEquals: { 'kms:ViaService': `secretsmanager.${REGION}.amazonaws.com` },
          StringLike: {
            'kms:EncryptionContext:SecretARN': secret(TENANT_VARIABLE).replace('AbCdEf', '??????'),
          },
        },
      }),
    ]);
  });

  it("keeps the role's trust policy within the 2,048 characters IAM allows by default", () => {
    // Act: with the role ARNs CloudFormation would give (64-character role names at most).
    const trust = iam.resourcePolicy(tenantRoleArn);
    const longest = `arn:aws:iam::${ACCOUNT}:role/${'r'.repeat(64)}`;
    const worst = JSON.stringify(trust).replace(/arn:aws:iam::\d+:role\/[^"]+/g, longest);

    // Assess
    expect(worst.length).toBeLessThan(2048);
  });

  it("declares for every handler a tenant's registry entry in its session and the role it takes, the committer none", () => {
    // Assess
    expect(declared.map(({ f }) => f.name).sort()).toEqual([...WORKFLOW_FUNCTIONS].sort());
    for (const { f, calls } of declared) {
      if (f === committerFn) {
        expect(calls.tenantSession).toEqual([]);
        expect(calls.ownRole.map((c) => c.call)).not.toContain('stsAssumeRole');
        expect(calls.ownRole.flatMap((c) => c.permissions.map((p) => p.action))).toContain(
          'glue:UpdateTable',
        );
        continue;
      }
      expect(calls.tenantSession.map((c) => c.why)).toContain("read the tenant's registry entry");
      expect(calls.ownRole.map((c) => c.call)).toContain('stsAssumeRole');
      // The session writes no table metadata and calls no UpdateTable (the committer does).
      expect(
        calls.tenantSession.flatMap((c) =>
          c.permissions.filter(
            (p) =>
              p.action === 'glue:UpdateTable' ||
              (p.action !== 's3:GetObject' && /\/tables\/[^/]+\/(metadata|commit-requests)/.test(p.resource)),
          ),
        ),
      ).toEqual([]);
      // Its data files are created only and never deleted: every write of one is If-None-Match
      // or a multipart step, and no call deletes one (a failed run's files are orphans).
      const data = calls.tenantSession.flatMap((c) =>
        c.permissions.filter((p) => /\/tables\/[^/]+\/data\//.test(p.resource)),
      );
      expect(data.filter((p) => p.action === 's3:DeleteObject')).toEqual([]);
      expect(
        data.filter(
          (p) =>
            p.action === 's3:PutObject' &&
            p.context?.['s3:if-none-match'] !== '*' &&
            p.context?.['s3:ObjectCreationOperation'] !== 'false',
        ),
      ).toEqual([]);
    }
    expect(DECLARED.filter((r) => r.who === 'exportResults as acme').length).toBeGreaterThan(30);
    // ExportResults writes data files, so the check above is not vacuous: create-only, multipart too.
    const dataWrites = DECLARED.filter(
      (r) =>
        r.who === 'exportResults as acme' &&
        r.action === 's3:PutObject' &&
        /\/tables\/[^/]+\/data\//.test(r.resource),
    );
    expect(new Set(dataWrites.map((r) => JSON.stringify(r.context)))).toEqual(
      new Set([JSON.stringify(CREATE_FILE), JSON.stringify(UPLOAD_PART)]),
    );
    // So does SyncDirectories, into its own partitions of the contact tables (putIfAbsent).
    const contactWrites = DECLARED.filter(
      (r) =>
        r.who === 'syncDirectories as acme' && r.action === 's3:PutObject' && /\/data\//.test(r.resource),
    );
    expect(contactWrites.map((r) => [r.resource.replace(/^.*\/tables\//, ''), r.context])).toEqual(
      CONTACT_TABLES.map((t) => [
        expect.stringMatching(new RegExp(`^${t}/data/tenant=acme/directory_id=[^/]+/[^/]+\\.parquet$`)),
        CREATE_ONLY,
      ]),
    );
    // Finalize reads and deletes the report in the session, in the tenant's own staging.
    expect(
      DECLARED.filter(
        (r) => r.who === 'finalize as acme' && /_directory-sync-reports\//.test(r.resource),
      ).map((r) => r.action),
    ).toEqual(['s3:GetObject', 's3:DeleteObject']);
  });

  it('finds the functions, each with only the TenantAccess role and the runtime it needs, and the committer', () => {
    // Assess: every handler's function once; the role trusts the six
    // that take a tenant's session, each of them (TRUST evaluates it), the committer not.
    expect(functions.map((f) => f.name).sort()).toEqual([...FUNCTION_NAMES].sort());
    expect(sessionFunctions.map((f) => f.name).sort()).toEqual(
      FUNCTION_NAMES.filter((n) => n !== 'commit').sort(),
    );
    expect(sessionFunctions).toHaveLength(6);
    const committerActions = committer.policies.flatMap((p) =>
      (p.policy.Statement as { Action: string | string[] }[]).flatMap((st) => [st.Action].flat()),
    );
    expect(committerActions.filter((a) => a.startsWith('secretsmanager:') || a.startsWith('sts:'))).toEqual(
      [],
    );
    for (const f of sessionFunctions) {
      const actions = f.role.policies.flatMap((p) =>
        (p.policy.Statement as { Action: string | string[] }[]).flatMap((s) => [s.Action].flat()),
      );
      expect(actions.filter((a) => a.startsWith('secretsmanager:') || a.startsWith('glue:'))).toEqual([]);
      expect(actions).toEqual(expect.arrayContaining(['sts:AssumeRole', 'sts:TagSession']));
    }
    expect(env).not.toHaveProperty('SECRET_URI');
    expect(env.TENANT_SECRET_URI).toBe(`secretsmanager:report-export/${STACK_NAME}/tenants/{tenant}`);
    expect(env.TENANT_REGISTRY_URI).toBe(`s3://${lake.bucket}/${TENANT_REGISTRY_PREFIX}`);
  });
});
