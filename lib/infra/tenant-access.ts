import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  DATASETS,
  OUTPUT_FORMATS,
  stagingArea,
  tableDataPrefix,
  tenantPrefix,
  tenantSegment,
} from '../export';
import { tableRootKey } from '../stores';
import { runRecordsPrefix } from '../workflow';
import { ICEBERG_TABLES, type LakeTableName, tableMetadataPrefix } from './iceberg-tables';
import { acknowledge, arnOf } from './nag-acknowledgements';
import { CREATE_ONLY, MULTIPART_STEPS } from './table-committer';
import { glueTableArns } from './table-maintenance';

/** The session tag a tenant's run is tagged with, and the policy variable that reads it. */
export const TENANT_TAG = 'tenant';
// biome-ignore lint/suspicious/noTemplateCurlyInString: IAM's policy variable, not a template.
export const TENANT_VARIABLE = '${aws:PrincipalTag/tenant}';

/** Longest tenant id (lib/export/tenant.ts: TENANT_ID_PATTERN). */
const TENANT_ID_MAX_LENGTH = 32;

/**
 * Tag values the trust refuses, as `StringNotLike` patterns: IAM's wildcards cannot say
 * TENANT_ID_PATTERN (`^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$`), but they can refuse every
 * character a session tag value may hold beyond it (upper case letters, space and
 * `_ . : / = + @`), a hyphen at either end, and more than 32 characters. Letters and digits
 * of other scripts remain (IAM allows any Unicode letter): the functions check the id
 * against the pattern before they assume the role.
 */
export function refusedTenantTagValues(): string[] {
  const upper = Array.from({ length: 26 }, (_, i) => `*${String.fromCharCode(65 + i)}*`);
  const others = [' ', '_', '.', ':', '/', '=', '+', '@'].map((c) => `*${c}*`);
  return [...upper, ...others, '-*', '*-', `${'?'.repeat(TENANT_ID_MAX_LENGTH + 1)}*`];
}

/**
 * Several roles as one principal: one trust statement naming them all (a CompositePrincipal
 * repeats the statement, conditions and all, per role, past the trust policy's 2,048 characters).
 */
class RolesPrincipal extends iam.PrincipalBase {
  constructor(private readonly roleArns: readonly string[]) {
    super();
  }

  get policyFragment(): iam.PrincipalPolicyFragment {
    return new iam.PrincipalPolicyFragment({ AWS: [...this.roleArns] });
  }

  override toString(): string {
    return `RolesPrincipal(${this.roleArns.length})`;
  }

  override dedupeString(): string | undefined {
    return undefined;
  }
}

/** The S3 keys of one tenant: where the lake, the leases and the registry keep them. */
export interface TenantKeys {
  /** The export's key prefix in the lake bucket (`lake`). */
  readonly prefix: string;
  /** The lease store's prefix (`_leases`). */
  readonly leasePrefix: string;
  /** The registry's prefix (`_tenants`): one `<tenant>.json` per tenant. */
  readonly registryPrefix: string;
}

/**
 * Key prefixes (no trailing `/*`) a tenant's run reads and writes, with `tenant` in place of
 * its id: its CSV partitions, its Iceberg data files, its staging, its run records and its
 * leases (docs/many-tenants.md). Only the CSV format: a multi-tenant
 * deployment keeps its Parquet in the Iceberg tables.
 */
export function tenantPrefixes(k: TenantKeys, tenant: string): string[] {
  return [
    ...tenantCsvPrefixes(k, tenant),
    ...tenantDataPrefixes(k, tenant),
    stagingArea(k.prefix, tenant),
    runRecordsPrefix(k.prefix, tenant).replace(/\/$/, ''),
    `${k.leasePrefix}/${tenantSegment(tenant)}`,
  ];
}

/** The prefixes (no trailing `/*`) of a tenant's published CSV, one per dataset: read only by its session. */
function tenantCsvPrefixes(k: Pick<TenantKeys, 'prefix'>, tenant: string): string[] {
  return Object.values(DATASETS).map((dataset) =>
    tenantPrefix({ prefix: k.prefix, dataset, tenant }, OUTPUT_FORMATS.csv),
  );
}

/**
 * The prefixes (no trailing `/*`) of a tenant's Iceberg data files, one per table (the
 * datasets' and the contact tables', whose directory partitions are under it): created only
 * (If-None-Match), never overwritten nor deleted by its session (a committed file is the
 * table's; a failed run's files are orphans, removed by Glue's orphan-file deletion).
 */
export function tenantDataPrefixes(k: Pick<TenantKeys, 'prefix'>, tenant: string): string[] {
  return ICEBERG_TABLES.map((d) => tableDataPrefix(tableRootKey(k.prefix, d), tenant));
}

/** A tenant's secret name: `report-export/<stack>/tenants/<tenant>` (TENANT_SECRET_URI's template). */
export function tenantSecretName(stackName: string, tenant: string): string {
  return `report-export/${stackName}/tenants/${tenant}`;
}

interface TenantAccessProps extends TenantKeys {
  readonly bucket: s3.IBucket;
  /** The key the CLI encrypts tenants' secrets with. */
  readonly secretKey: kms.IKey;
  /** The Glue database and the Iceberg tables a run reads (the committer writes them). */
  readonly databaseName: string;
  readonly tables: readonly LakeTableName[];
  /** The roles that may take this one for a tenant: the workflow's functions'. */
  readonly trustedRoles: readonly iam.IRole[];
}

/**
 * The role a tenant's run acts in (attribute-based access control): the workflow's
 * functions assume it with the session tag `tenant=<id>`, and every resource of its
 * policies names `${aws:PrincipalTag/tenant}`, so a session of tenant A reaches A's
 * registry entry, A's secret and A's keys, and nothing of B's. Shared, and only read: the
 * tables' metadata and GetTable. A session writes no table metadata, moves no table's
 * pointer and sees no commit request: the committer (table-committer.ts) does that, from the
 * staged run the session leaves in its staging. Its data files it creates only: a file a
 * commit names is the table's, never replaced nor deleted by the session that wrote it.
 */
export class TenantAccess extends Construct {
  readonly role: iam.Role;
  /** The key of the tenants' secrets (the CLI creates each secret with it). */
  readonly secretKey: kms.IKey;

  constructor(scope: Construct, id: string, props: TenantAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const tag = TENANT_VARIABLE;
    this.secretKey = props.secretKey;
    this.role = new iam.Role(this, 'Role', {
      description: 'report-export: one tenant run (session tag tenant=<id>); ABAC on the tag',
      assumedBy: new iam.PrincipalWithConditions(
        new iam.SessionTagsPrincipal(new RolesPrincipal(props.trustedRoles.map((r) => r.roleArn))),
        {
          Null: { [`aws:RequestTag/${TENANT_TAG}`]: 'false' },
          'ForAllValues:StringEquals': { 'aws:TagKeys': [TENANT_TAG] },
          StringNotLike: { [`aws:RequestTag/${TENANT_TAG}`]: refusedTenantTagValues() },
        },
      ),
    });

    const object = (key: string) => props.bucket.arnForObjects(key);
    const own = tenantPrefixes(props, tag);
    const data = tenantDataPrefixes(props, tag);
    const csv = tenantCsvPrefixes(props, tag);
    const mutable = own.filter((p) => !data.includes(p) && !csv.includes(p));
    const secretArn = stack.formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${tenantSecretName(stack.stackName, tag)}-??????`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const metadata = props.tables.map((d) => object(`${tableMetadataPrefix(props.prefix, d)}/*`));
    const statements = [
      new iam.PolicyStatement({
        sid: 'RegistryEntry',
        actions: ['s3:GetObject'],
        resources: [object(`${props.registryPrefix}/${tag}.json`)],
      }),
      new iam.PolicyStatement({
        sid: 'Secret',
        actions: [
          'secretsmanager:GetSecretValue',
          'secretsmanager:PutSecretValue',
          'secretsmanager:DescribeSecret',
        ],
        resources: [secretArn],
      }),
      new iam.PolicyStatement({
        sid: 'SecretKey',
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: [props.secretKey.keyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `secretsmanager.${stack.region}.${stack.urlSuffix}` },
          StringLike: { 'kms:EncryptionContext:SecretARN': secretArn },
        },
      }),
      new iam.PolicyStatement({
        sid: 'TenantObjects',
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
        resources: mutable.map((p) => object(`${p}/*`)),
      }),
      // Its published CSV: read only. The committer promotes a run's CSV from its staging.
      new iam.PolicyStatement({
        sid: 'TenantPublishedCsv',
        actions: ['s3:GetObject'],
        resources: csv.map((p) => object(`${p}/*`)),
      }),
      // Its data files: read, and created only. A PutObject or CompleteMultipartUpload must
      // carry If-None-Match (S3 then refuses a key that exists); a multipart upload's
      // CreateMultipartUpload and UploadPart, which carry no conditional header and create
      // nothing, pass on s3:ObjectCreationOperation false. No DeleteObject.
      new iam.PolicyStatement({
        sid: 'TenantDataFiles',
        actions: ['s3:GetObject', 's3:AbortMultipartUpload'],
        resources: data.map((p) => object(`${p}/*`)),
      }),
      new iam.PolicyStatement({
        sid: 'TenantDataFilesCreateOnly',
        actions: ['s3:PutObject'],
        resources: data.map((p) => object(`${p}/*`)),
        conditions: CREATE_ONLY,
      }),
      new iam.PolicyStatement({
        sid: 'TenantDataFileUploadParts',
        actions: ['s3:PutObject'],
        resources: data.map((p) => object(`${p}/*`)),
        conditions: MULTIPART_STEPS,
      }),
      new iam.PolicyStatement({
        sid: 'TenantListings',
        actions: ['s3:ListBucket'],
        resources: [props.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': own.map((p) => `${p}/*`) } },
      }),
      // The tables are read in the session (the shrink guard, the table's shape); only the
      // committer writes them (table-committer.ts). A run stages its files and its staged run
      // under its own prefixes and never sees the tables' commit requests.
      new iam.PolicyStatement({
        sid: 'SharedTableMetadata',
        actions: ['s3:GetObject'],
        resources: metadata,
      }),
      new iam.PolicyStatement({
        sid: 'TableReads',
        actions: ['glue:GetTable'],
        resources: glueTableArns(stack, props.databaseName, props.tables),
      }),
    ];
    for (const s of statements) this.role.addToPolicy(s);

    // cdk-nag spells the policy variable `<aws:PrincipalTag/tenant>`.
    const bucket = arnOf(props.bucket);
    acknowledge(
      this.role,
      'AwsSolutions-IAM5',
      tenantPrefixes(props, '<aws:PrincipalTag/tenant>').map((p) => `Resource::${bucket}/${p}/*`),
      "Each is one tenant's prefix, the session's own (its tag); parts, data files, staging, run records and leases are named by report, date and run at run time.",
    );
    acknowledge(
      this.role,
      'AwsSolutions-IAM5',
      props.tables.map((d) => `Resource::${bucket}/${tableMetadataPrefix(props.prefix, d)}/*`),
      "The tables' metadata is shared by every tenant (one table per dataset) and only read in a session: the committer writes it.",
    );
  }

  /** Lets a function's role take this role for a tenant (AssumeRole with the tag). */
  grantAssume(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['sts:AssumeRole', 'sts:TagSession'],
      resourceArns: [this.role.roleArn],
    });
  }
}
