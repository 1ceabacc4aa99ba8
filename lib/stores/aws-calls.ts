/**
 * Every AWS API call the AWS adapters of this folder make, with the IAM permissions each
 * needs on which resource, in one table. The adapters take from it what to name when AWS
 * refuses a call, and the workflow's declarations (lib/workflow/aws-calls.ts) expand their
 * store operations through it, which test/infra/iam-evaluation.test.ts then evaluates
 * against the synthesized roles: a call added here is a permission checked there.
 */

/** One IAM permission a call needs: the action, the resource ARN and the request's condition keys. */
export interface IamPermission {
  readonly action: string;
  readonly resource: string;
  /** Condition keys the request carries (e.g. `s3:prefix` of a listing). */
  readonly context?: Readonly<Record<string, string>>;
}

/** An object call: the bucket and the object's key. */
export interface S3ObjectTarget {
  readonly bucket: string;
  readonly key: string;
}

/** A listing: the bucket and the key prefix listed. */
interface S3ListTarget {
  readonly bucket: string;
  readonly prefix: string;
}

/** A server-side copy inside one bucket. */
interface S3CopyTarget {
  readonly bucket: string;
  readonly fromKey: string;
  readonly toKey: string;
}

/** A Glue Data Catalog table: the Region and account of its catalog, its database and name. */
export interface GlueTableTarget {
  readonly region: string;
  readonly account: string;
  readonly database: string;
  readonly table: string;
}

/** A tenant's session: the role assumed and the tenant its session is tagged with. */
export interface TenantSessionTarget {
  readonly roleArn: string;
  readonly tenant: string;
}

/** A secret, by the id the store is given: its ARN, or a name. */
interface SecretTarget {
  readonly secretId: string;
}

/** One AWS API call: what a reader of CloudTrail sees, and the permissions it needs. */
interface AwsCall<Target> {
  readonly service: 's3' | 'secretsmanager' | 'glue' | 'sts';
  /** The API operation(s), as CloudTrail names them; several when one SDK call makes a sequence. */
  readonly operations: readonly string[];
  readonly permissions: (target: Target) => readonly IamPermission[];
}

/** `arn:aws:s3:::<bucket>`; the stores run in the `aws` partition. */
function bucketArn(bucket: string): string {
  return `arn:aws:s3:::${bucket}`;
}

/** `arn:aws:s3:::<bucket>/<key>`. */
function objectArn(bucket: string, key: string): string {
  return `${bucketArn(bucket)}/${key}`;
}

/** A secret's ARN; a bare name stands for any of its versions' ARNs (suffix `-??????`). */
export function secretArn(secretId: string): string {
  return secretId.startsWith('arn:') ? secretId : `arn:aws:secretsmanager:*:*:secret:${secretId}-??????`;
}

/**
 * A table call acts on the catalog, the database and the table: IAM checks all three ARNs
 * (https://docs.aws.amazon.com/glue/latest/dg/glue-specifying-resource-arns.html).
 */
const onTable =
  (action: string) =>
  (t: GlueTableTarget): readonly IamPermission[] => {
    const base = `arn:aws:glue:${t.region}:${t.account}`;
    return [
      { action, resource: `${base}:catalog` },
      { action, resource: `${base}:database/${t.database}` },
      { action, resource: `${base}:table/${t.database}/${t.table}` },
    ];
  };

const onObject =
  (action: string) =>
  (t: S3ObjectTarget): readonly IamPermission[] => [{ action, resource: objectArn(t.bucket, t.key) }];

/**
 * A read of a key that may be missing. S3 answers 404 only to a caller allowed
 * s3:ListBucket on the bucket, 403 to anyone else: without it a missing object (a free
 * lease, a key not yet written) would read as AccessDenied, not as "not found".
 */
const readMaybeMissing = (t: S3ObjectTarget): readonly IamPermission[] => [
  { action: 's3:GetObject', resource: objectArn(t.bucket, t.key) },
  { action: 's3:ListBucket', resource: bucketArn(t.bucket) },
];

/** The calls, by name; the adapters and the workflow's declarations refer to these names. */
export const AWS_CALLS = {
  getObject: {
    service: 's3',
    operations: ['GetObject'],
    permissions: readMaybeMissing,
  } satisfies AwsCall<S3ObjectTarget>,
  headObject: {
    service: 's3',
    operations: ['HeadObject'],
    permissions: readMaybeMissing,
  } satisfies AwsCall<S3ObjectTarget>,
  putObject: {
    service: 's3',
    operations: ['PutObject'],
    permissions: onObject('s3:PutObject'),
  } satisfies AwsCall<S3ObjectTarget>,
  /** `@aws-sdk/lib-storage`'s Upload of a stream: one PutObject, or a multipart upload. */
  uploadStream: {
    service: 's3',
    operations: ['PutObject', 'CreateMultipartUpload', 'UploadPart', 'CompleteMultipartUpload'],
    permissions: onObject('s3:PutObject'),
  } satisfies AwsCall<S3ObjectTarget>,
  /** Upload's clean-up of a failed or timed-out multipart upload (`leavePartsOnError: false`). */
  abortMultipartUpload: {
    service: 's3',
    operations: ['AbortMultipartUpload'],
    permissions: onObject('s3:AbortMultipartUpload'),
  } satisfies AwsCall<S3ObjectTarget>,
  /** Creates an object only if none exists (`If-None-Match: *`): a free lease, a table's next metadata file. */
  putObjectIfNoneMatch: {
    service: 's3',
    operations: ['PutObject'],
    // The request's header as IAM sees it: a create-only grant (s3:if-none-match) allows it.
    permissions: (t: S3ObjectTarget) => [
      { action: 's3:PutObject', resource: objectArn(t.bucket, t.key), context: { 's3:if-none-match': '*' } },
    ],
  } satisfies AwsCall<S3ObjectTarget>,
  /**
   * Upload of a file that creates the object only if none exists (a table's data file): one
   * PutObject or CompleteMultipartUpload with `If-None-Match: *` (S3's object-creating
   * requests, `s3:ObjectCreationOperation` true), and for a multipart upload its
   * CreateMultipartUpload and UploadPart, which take no conditional header
   * (`s3:ObjectCreationOperation` false) and create nothing by themselves.
   */
  uploadStreamIfNoneMatch: {
    service: 's3',
    operations: ['PutObject', 'CreateMultipartUpload', 'UploadPart', 'CompleteMultipartUpload'],
    permissions: (t: S3ObjectTarget) => [
      {
        action: 's3:PutObject',
        resource: objectArn(t.bucket, t.key),
        context: { 's3:if-none-match': '*', 's3:ObjectCreationOperation': 'true' },
      },
      {
        action: 's3:PutObject',
        resource: objectArn(t.bucket, t.key),
        context: { 's3:ObjectCreationOperation': 'false' },
      },
    ],
  } satisfies AwsCall<S3ObjectTarget>,
  /** Replaces one version of an object (`If-Match: <ETag>`): an expired lease taken over. */
  putObjectIfMatch: {
    service: 's3',
    operations: ['PutObject'],
    permissions: onObject('s3:PutObject'),
  } satisfies AwsCall<S3ObjectTarget>,
  /** Deletes one version of an object (`If-Match: <ETag>`): a lease released. */
  deleteObjectIfMatch: {
    service: 's3',
    operations: ['DeleteObject'],
    permissions: onObject('s3:DeleteObject'),
  } satisfies AwsCall<S3ObjectTarget>,
  /** A batch delete; S3 checks s3:DeleteObject for each key of the batch. */
  deleteObjects: {
    service: 's3',
    operations: ['DeleteObjects'],
    permissions: onObject('s3:DeleteObject'),
  } satisfies AwsCall<S3ObjectTarget>,
  listObjectsV2: {
    service: 's3',
    operations: ['ListObjectsV2'],
    permissions: (t: S3ListTarget): readonly IamPermission[] => [
      { action: 's3:ListBucket', resource: bucketArn(t.bucket), context: { 's3:prefix': t.prefix } },
    ],
  } satisfies AwsCall<S3ListTarget>,
  /** Server-side copy: reads the source, writes the target. */
  copyObject: {
    service: 's3',
    operations: ['CopyObject'],
    permissions: (t: S3CopyTarget): readonly IamPermission[] => [
      { action: 's3:GetObject', resource: objectArn(t.bucket, t.fromKey) },
      { action: 's3:PutObject', resource: objectArn(t.bucket, t.toKey) },
    ],
  } satisfies AwsCall<S3CopyTarget>,
  /** A table's definition: its metadata location and VersionId. */
  glueGetTable: {
    service: 'glue',
    operations: ['GetTable'],
    permissions: onTable('glue:GetTable'),
  } satisfies AwsCall<GlueTableTarget>,
  /** An Iceberg commit: the table moved to new metadata if still at the VersionId read. */
  glueUpdateTable: {
    service: 'glue',
    operations: ['UpdateTable'],
    permissions: onTable('glue:UpdateTable'),
  } satisfies AwsCall<GlueTableTarget>,
  /** A table registered by its first commit (the stack creates ours). */
  glueCreateTable: {
    service: 'glue',
    operations: ['CreateTable'],
    permissions: onTable('glue:CreateTable'),
  } satisfies AwsCall<GlueTableTarget>,
  getSecretValue: {
    service: 'secretsmanager',
    operations: ['GetSecretValue'],
    permissions: (t: SecretTarget): readonly IamPermission[] => [
      { action: 'secretsmanager:GetSecretValue', resource: secretArn(t.secretId) },
    ],
  } satisfies AwsCall<SecretTarget>,
  putSecretValue: {
    service: 'secretsmanager',
    operations: ['PutSecretValue'],
    permissions: (t: SecretTarget): readonly IamPermission[] => [
      { action: 'secretsmanager:PutSecretValue', resource: secretArn(t.secretId) },
    ],
  } satisfies AwsCall<SecretTarget>,
  /**
   * A tenant's session (tenant-credentials.ts): AssumeRole with the session tag
   * `tenant=<id>`, which needs sts:TagSession with that request tag too.
   */
  stsAssumeRole: {
    service: 'sts',
    operations: ['AssumeRole'],
    permissions: (t: TenantSessionTarget): readonly IamPermission[] => [
      { action: 'sts:AssumeRole', resource: t.roleArn },
      { action: 'sts:TagSession', resource: t.roleArn, context: { 'aws:RequestTag/tenant': t.tenant } },
    ],
  } satisfies AwsCall<TenantSessionTarget>,
} as const;

export type AwsCallName = keyof typeof AWS_CALLS;
/** What a call acts on (bucket and key, a listing, a copy, a secret). */
export type TargetOf<N extends AwsCallName> = Parameters<(typeof AWS_CALLS)[N]['permissions']>[0];

/**
 * The calls each operation of each AWS adapter makes. An operation's calls share one
 * target type, so one target gives all of their permissions.
 */
export const STORE_OPERATION_CALLS = {
  /** S3Store (s3-store.ts). */
  s3Store: {
    /** `put` of bytes or a string: one PutObject. */
    put: ['putObject'],
    /** `putIfAbsent`: one PutObject with `If-None-Match: *` (a file catalog's commit). */
    putIfAbsent: ['putObjectIfNoneMatch'],
    /** `put` of a stream, and `putFile`: Upload (PutObject or multipart), aborted on failure. */
    putStream: ['uploadStream', 'abortMultipartUpload'],
    putFile: ['uploadStream', 'abortMultipartUpload'],
    /** `putFile` create-only (a table's data file): never over an existing object, multipart too. */
    putFileIfAbsent: ['uploadStreamIfNoneMatch', 'abortMultipartUpload'],
    get: ['getObject'],
    head: ['headObject'],
    list: ['listObjectsV2'],
    deleteMany: ['deleteObjects'],
    copy: ['copyObject'],
  },
  /** S3LeaseStore (s3-lease-store.ts), on the lease's object key. */
  s3LeaseStore: {
    acquire: ['putObjectIfNoneMatch', 'getObject', 'putObjectIfMatch'],
    release: ['deleteObjectIfMatch'],
  },
  /**
   * GlueCatalog (glue-catalog.ts), on the table; its metadata files are S3Store operations
   * (put, get, deleteMany) under the table's location.
   */
  glueCatalog: {
    load: ['glueGetTable'],
    /** A commit onto a loaded table. */
    commit: ['glueGetTable', 'glueUpdateTable'],
    /** A first commit (no table yet): CreateTable, then GetTable for its VersionId. */
    create: ['glueGetTable', 'glueCreateTable'],
  },
  /** SecretsManagerStore (secrets-manager-store.ts). */
  secretsManagerStore: {
    get: ['getSecretValue'],
    put: ['putSecretValue'],
  },
  /** tenantCredentials (tenant-credentials.ts): a tenant's session, renewed before it expires. */
  tenantSession: {
    assume: ['stsAssumeRole'],
  },
} as const satisfies Record<string, Record<string, readonly AwsCallName[]>>;

/** Every permission the calls need on one target, in call order, without repeats. */
export function permissionsOf<N extends AwsCallName>(
  calls: readonly N[],
  target: TargetOf<N>,
): IamPermission[] {
  const out = new Map<string, IamPermission>();
  for (const name of calls) {
    const permissions = AWS_CALLS[name].permissions as (t: TargetOf<N>) => readonly IamPermission[];
    for (const p of permissions(target)) out.set(`${p.action} ${p.resource}`, p);
  }
  return [...out.values()];
}

/** True for AWS's refusal of a call: AccessDenied (S3), AccessDeniedException, or a bare 403 (HEAD). */
export function isAccessDenied(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return (
    e?.name === 'AccessDenied' || e?.name === 'AccessDeniedException' || e?.$metadata?.httpStatusCode === 403
  );
}

/**
 * What to append to a store's error message when AWS refused the call: the permissions
 * it needs, e.g. `; needs s3:PutObject on arn:aws:s3:::bucket/lake/x.parquet`. Empty for
 * any other failure.
 */
export function accessDeniedHint(cause: unknown, permissions: readonly IamPermission[]): string {
  if (!isAccessDenied(cause) || permissions.length === 0) return '';
  return `; needs ${permissions.map((p) => `${p.action} on ${p.resource}`).join(', ')}`;
}
