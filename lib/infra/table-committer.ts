import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import {
  COMMIT_REQUESTS_FOLDER,
  COMMITS_FOLDER,
  type Dataset,
  OUTPUT_FORMATS,
  stagingArea,
  tenantPrefix,
} from '../export';
import { tableRootKey } from '../stores';
import { isContactTable, type LakeTableName, tableMetadataPrefix } from './iceberg-tables';
import { acknowledge, arnOf } from './nag-acknowledgements';
import { glueTableArns } from './table-maintenance';

/**
 * One committer per deployment (issue 28): the Commit function's own role is the only
 * principal of the workflow that writes the tables' metadata and moves their pointer
 * (glue:UpdateTable). These are its grants, what the other roles are refused, and the bucket
 * policy that keeps the metadata create-only for everyone else.
 */

/** The IAM condition of a create-only write: the request carries `If-None-Match` (S3 sends only `*`). */
export const CREATE_ONLY = { Null: { 's3:if-none-match': 'false' } } as const;

/**
 * The IAM condition of a multipart upload's CreateMultipartUpload and UploadPart (and
 * UploadPartCopy): S3 takes no conditional header on them, and they create no object (AWS,
 * "Enforce conditional writes on Amazon S3 buckets"). With CREATE_ONLY on the rest, a large
 * file is created only through a CompleteMultipartUpload that carries If-None-Match.
 */
export const MULTIPART_STEPS = { Bool: { 's3:ObjectCreationOperation': 'false' } } as const;

/**
 * The condition of a write that may replace an object: no If-None-Match on a request that
 * creates one (PutObject, CompleteMultipartUpload, CopyObject). IfExists: a request whose
 * s3:ObjectCreationOperation is absent is counted as one, so only a multipart upload's
 * steps, which say false, are let through.
 */
const OVERWRITE = {
  Null: { 's3:if-none-match': 'true' },
  BoolIfExists: { 's3:ObjectCreationOperation': 'true' },
} as const;

/** What the committer's grants and the others' refusals are about. */
export interface TableKeys {
  readonly bucket: s3.IBucket;
  /** The lake's key prefix (`lake`). */
  readonly prefix: string;
  /** The lease store's prefix (`_leases`): the committer takes every tenant's partition leases. */
  readonly leasePrefix: string;
  readonly databaseName: string;
  /** The Iceberg tables: the datasets' and the contact tables. */
  readonly tables: readonly LakeTableName[];
}

/** Objects of a table's data files, every tenant's: `<table>/data/*`. */
function tableDataObjects(k: Pick<TableKeys, 'bucket' | 'prefix' | 'tables'>): string[] {
  return k.tables.map((d) => k.bucket.arnForObjects(`${tableRootKey(k.prefix, d)}/data/*`));
}

/** Key prefixes (no trailing `/`) of a table's commit requests and the requests set aside (`commit-requests*`). */
function commitRequestObjects(prefix: string, dataset: LakeTableName): string {
  return `${tableRootKey(prefix, dataset)}/${COMMIT_REQUESTS_FOLDER}*`;
}

/**
 * The committer's keys, every tenant's (no trailing `/*`): the staging it reads, promotes and
 * removes (staged runs and CSV), the CSV partitions it promotes into, its commit records, the
 * tables' commit requests, and the partition leases.
 */
export function committerPrefixes(k: Pick<TableKeys, 'prefix' | 'leasePrefix' | 'tables'>): string[] {
  return [
    stagingArea(k.prefix),
    // CSV only of the report datasets: the contact tables have none.
    ...k.tables
      .filter((t): t is Dataset => !isContactTable(t))
      .map((dataset) => tenantPrefix({ prefix: k.prefix, dataset }, OUTPUT_FORMATS.csv)),
    `${k.prefix}/${COMMITS_FOLDER}`,
    k.leasePrefix,
  ];
}

/**
 * Grants the committer its calls: read, write and delete its keys and the commit requests;
 * read the tables' data files (sizes and footers); read and delete the tables' metadata and
 * create new metadata objects only (If-None-Match, never an overwrite); GetTable and
 * UpdateTable on the tables. No secret and no tenant session: it commits what the runs staged.
 */
export function grantTableCommitter(committer: iam.IGrantable & IConstruct, k: TableKeys): void {
  const stack = Stack.of(committer);
  const object = (key: string) => k.bucket.arnForObjects(key);
  const own = committerPrefixes(k);
  const requests = k.tables.map((d) => commitRequestObjects(k.prefix, d));
  const metadata = k.tables.map((d) => object(`${tableMetadataPrefix(k.prefix, d)}/*`));
  const statements = [
    new iam.PolicyStatement({
      sid: 'CommitterObjects',
      actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
      resources: [...own.map((p) => object(`${p}/*`)), ...requests.map(object)],
    }),
    new iam.PolicyStatement({
      sid: 'TableDataFiles',
      actions: ['s3:GetObject'],
      resources: tableDataObjects(k),
    }),
    new iam.PolicyStatement({
      sid: 'TableMetadataRead',
      actions: ['s3:GetObject', 's3:DeleteObject'],
      resources: metadata,
    }),
    new iam.PolicyStatement({
      sid: 'TableMetadataCreateOnly',
      actions: ['s3:PutObject'],
      resources: metadata,
      conditions: CREATE_ONLY,
    }),
    // A read of a key that may be missing asks ListBucket of the bucket (S3 answers 404 only
    // to a caller allowed it); the committer reads every tenant's keys, as Glue's optimizers do.
    new iam.PolicyStatement({
      sid: 'Listings',
      actions: ['s3:ListBucket'],
      resources: [k.bucket.bucketArn],
    }),
    new iam.PolicyStatement({
      sid: 'TableCommits',
      actions: ['glue:GetTable', 'glue:UpdateTable'],
      resources: glueTableArns(stack, k.databaseName, k.tables),
    }),
  ];
  for (const s of statements) committer.grantPrincipal.addToPrincipalPolicy(s);

  const bucket = arnOf(k.bucket);
  acknowledge(
    committer,
    'AwsSolutions-IAM5',
    [
      ...own.map((p) => `Resource::${bucket}/${p}/*`),
      ...requests.map((p) => `Resource::${bucket}/${p}`),
      ...k.tables.map((d) => `Resource::${bucket}/${tableRootKey(k.prefix, d)}/data/*`),
      ...k.tables.map((d) => `Resource::${bucket}/${tableMetadataPrefix(k.prefix, d)}/*`),
    ],
    "The committer commits every tenant's staged runs: staging, CSV partitions, commit records, commit requests and leases are named by tenant, report, date and run at run time; data files are only read; table metadata is read, deleted (a commit that did not land) and created only (If-None-Match).",
  );
}

/**
 * What a principal other than the committer may not do to the tables, as a statement of its
 * own policy: write or delete their metadata or commit requests, or the committer's records,
 * or move a table's pointer; delete a data file, or write one but create-only. For a role
 * whose other grants cover the whole lake prefix (single-tenant ExportResults), so that the
 * tables stay read-only to it but for new data files.
 */
export function refuseTableWrites(principal: iam.IGrantable, k: TableKeys): void {
  const stack = Stack.of(k.bucket);
  const object = (key: string) => k.bucket.arnForObjects(key);
  const role = principal.grantPrincipal;
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'NoTableMetadataWrites',
      effect: iam.Effect.DENY,
      actions: ['s3:PutObject', 's3:DeleteObject'],
      resources: [
        ...k.tables.map((d) => object(`${tableMetadataPrefix(k.prefix, d)}/*`)),
        ...k.tables.map((d) => object(commitRequestObjects(k.prefix, d))),
        object(`${k.prefix}/${COMMITS_FOLDER}/*`),
      ],
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'NoTableDataDeletes',
      effect: iam.Effect.DENY,
      actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
      resources: tableDataObjects(k),
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'NoTableDataOverwrites',
      effect: iam.Effect.DENY,
      actions: ['s3:PutObject'],
      resources: tableDataObjects(k),
      conditions: OVERWRITE,
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'NoTableCommits',
      effect: iam.Effect.DENY,
      actions: ['glue:UpdateTable', 'glue:CreateTable', 'glue:DeleteTable'],
      resources: glueTableArns(stack, k.databaseName, k.tables),
    }),
  );
}

/**
 * The bucket policy's part: no principal but the committer, Glue's optimizers (they rewrite
 * and expire metadata in their own roles) and the table creator (Glue writes a new table's
 * first metadata file as it) may delete a table's metadata or write it without
 * `If-None-Match`, i.e. possibly over an existing object. A tenant's session, an operator's
 * or another role's own write may then only add new objects, which the tables ignore until a
 * commit names them.
 */
export function protectTableMetadata(
  k: Pick<TableKeys, 'bucket' | 'prefix' | 'tables'>,
  writers: readonly string[],
): void {
  const metadata = k.tables.map((d) => k.bucket.arnForObjects(`${tableMetadataPrefix(k.prefix, d)}/*`));
  const others = { ArnNotEquals: { 'aws:PrincipalArn': [...writers] } };
  k.bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'TableMetadataNoDelete',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
      resources: metadata,
      conditions: others,
    }),
  );
  k.bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'TableMetadataNoOverwrite',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3:PutObject'],
      resources: metadata,
      conditions: { ...others, Null: { 's3:if-none-match': 'true' } },
    }),
  );
}

/**
 * The bucket policy's part for the tables' data files (every tenant's): a file a snapshot
 * names must stay as it was validated and committed, so no principal but `deleters` (the
 * committer and Glue's three optimizers: snapshot retention deletes expired files, orphan-file
 * deletion unreferenced ones, compaction as AWS documents it) may delete one, and none but
 * `rewriters` (the committer, compaction and snapshot retention, the optimizers that write)
 * may write one without If-None-Match. A run's session or role, an operator's, any other
 * principal may only create new files, which no table reads until a commit names them.
 */
export function protectTableData(
  k: Pick<TableKeys, 'bucket' | 'prefix' | 'tables'>,
  writers: { readonly deleters: readonly string[]; readonly rewriters: readonly string[] },
): void {
  const data = tableDataObjects(k);
  k.bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'TableDataNoDelete',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
      resources: data,
      conditions: { ArnNotEquals: { 'aws:PrincipalArn': [...writers.deleters] } },
    }),
  );
  k.bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'TableDataNoOverwrite',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3:PutObject'],
      resources: data,
      conditions: { ArnNotEquals: { 'aws:PrincipalArn': [...writers.rewriters] }, ...OVERWRITE },
    }),
  );
}
