import type { EvaluationResult } from '@cloud-copilot/iam-simulate';
import { describe, expect, it } from 'vitest';
import { TENANT_REGISTRY_PREFIX } from '../../lib/infra/report-export-stack';
import { TENANT_VARIABLE, tenantPrefixes, tenantSecretName } from '../../lib/infra/tenant-access';
import { parseS3Uri } from '../../lib/stores/from-uri';
import {
  type DeclaredCall,
  type TenantStoreEnvironment,
  tenantRunAwsCalls,
  WORKFLOW_FUNCTIONS,
  type WorkflowFunctionName,
} from '../../lib/workflow/aws-calls';
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
const functions = iam.ofType('AWS::Lambda::Function').flatMap(([id, r]) => {
  const env = iam.resolve((r.Properties?.Environment as { Variables?: unknown } | undefined)?.Variables) as
    | Record<string, string>
    | undefined;
  if (env?.TENANT_ROLE_ARN === undefined) return [];
  // The handler by its construct (PlanFunction…, ExportResultsFunction…).
  const name = WORKFLOW_FUNCTIONS.find((n): n is WorkflowFunctionName =>
    id.toLowerCase().startsWith(`${n.toLowerCase()}function`),
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
const other = keysOf('bruin');
const ALLOWED: Row[] = [
  acmeMay('read its registry entry', 's3:GetObject', object(`${TENANT_REGISTRY_PREFIX}/acme.json`)),
  ...['GetSecretValue', 'PutSecretValue', 'DescribeSecret'].map((a) =>
    acmeMay('use its secret', `secretsmanager:${a}`, secret('acme')),
  ),
  ...Object.entries(own).flatMap(([kind, key]) =>
    ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'].map((a) => acmeMay(`its ${kind}`, a, object(key))),
  ),
  acmeMay('abort an upload of its data file', 's3:AbortMultipartUpload', object(own.tableData)),
  ...tenantPrefixes({ prefix: lake.prefix, leasePrefix: leases.prefix, registryPrefix: '' }, 'acme').map(
    (p) =>
      acmeMay('list its prefix', 's3:ListBucket', `arn:aws:s3:::${lake.bucket}`, { 's3:prefix': `${p}/` }),
  ),
  ...[METADATA, MANIFEST].flatMap((key) =>
    ['s3:GetObject', 's3:PutObject'].map((a) => acmeMay('the shared table metadata', a, object(key))),
  ),
  ...['calls', 'summaries'].flatMap((dataset) => [
    ...['s3:GetObject', 's3:PutObject', 's3:DeleteObject'].map((a) =>
      acmeMay('its commit request (grouped commits)', a, object(commitRequest('acme', dataset))),
    ),
    ...['s3:GetObject', 's3:DeleteObject'].map((a) =>
      acmeMay("bruin's commit request, carried by acme's commit", a, object(commitRequest('bruin', dataset))),
    ),
    acmeMay("list a table's commit requests", 's3:ListBucket', `arn:aws:s3:::${lake.bucket}`, {
      's3:prefix': `${lake.prefix}/tables/${dataset}/commit-requests/`,
    }),
  ]),
  ...['glue:GetTable', 'glue:UpdateTable'].flatMap((a) =>
    [
      glue('catalog'),
      glue('database/report_export'),
      glue('table/report_export/calls'),
      glue('table/report_export/summaries'),
    ].map((arn) => acmeMay('commit to the tables', a, arn)),
  ),
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
      acmeMayNot(`bruin's ${kind}`, a, object(key)),
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
  acmeMayNot("write bruin's commit request", 's3:PutObject', object(commitRequest('bruin'))),
  acmeMayNot('delete the shared table metadata', 's3:DeleteObject', object(METADATA)),
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
  (p.action === 's3:ListBucket' && p.context?.['s3:prefix'] === undefined) ||
  (p.action === 's3:DeleteObject' && /\/tables\/[^/]+\/metadata\//.test(p.resource));
const declaredRows = (who: string, principal: RolePrincipal, calls: readonly DeclaredCall[]): Row[] =>
  calls.flatMap((c) =>
    c.permissions.map((p) =>
      row(
        who,
        principal,
        c.why,
        p.action,
        p.resource,
        refusedByDesign(p) ? 'ImplicitlyDenied' : 'Allowed',
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
    ...declaredRows(`${f.name} as acme`, acme, calls.tenantSession),
    ...declaredRows(f.name, f.role, calls.ownRole),
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

/** A function's role taking TenantAccess with a request's tags. */
const assume = (tags: Record<string, string>, expected: EvaluationResult, why: string): Row[] =>
  functions.flatMap((f) =>
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

const FUNCTIONS_DENIED: Row[] = functions.flatMap((f) => [
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
    "writing a tenant's table data directly",
    's3:PutObject',
    object(own.tableData),
    'ImplicitlyDenied',
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
]);

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
  it.each(titled([...DECLARED, ...ALLOWED, ...DENIED, ...TRUST, ...FUNCTIONS_DENIED, ...SCHEDULER]))(
    'evaluates %s',
    async (_, r) => {
      // Act
      const result = await iam.evaluate(r.principal, {
        action: r.action,
        resource: r.resource,
        ...(r.context === undefined ? {} : { context: r.context }),
      });

      // Assess
      expect(result, `${r.who}: ${r.why}`).toBe(r.expected);
    },
  );

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

  it("declares for every handler a tenant's registry entry in its session and the role it takes", () => {
    // Assess
    expect(declared.map(({ f }) => f.name).sort()).toEqual([...WORKFLOW_FUNCTIONS].sort());
    for (const { calls } of declared) {
      expect(calls.tenantSession.map((c) => c.why)).toContain("read the tenant's registry entry");
      expect(calls.ownRole.map((c) => c.call)).toContain('stsAssumeRole');
    }
    expect(DECLARED.filter((r) => r.who === 'exportResults as acme').length).toBeGreaterThan(30);
  });

  it('finds the five functions, each with only the TenantAccess role and the runtime it needs', () => {
    // Assess
    expect(functions).toHaveLength(5);
    for (const f of functions) {
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
