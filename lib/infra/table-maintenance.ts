import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, type IConstruct } from 'constructs';
import { tableRootKey } from '../stores';
import type { LakeTableName } from './iceberg-tables';
import { TABLE_RETENTION } from './iceberg-tables';
import { acknowledge, arnOf } from './nag-acknowledgements';

/** The Glue table optimizers, by their CloudFormation `Type`. */
export const OPTIMIZER_TYPES = ['compaction', 'retention', 'orphan_file_deletion'] as const;
export type OptimizerType = (typeof OPTIMIZER_TYPES)[number];

/** The log group Glue writes each optimizer's runs to (AWS, "Table optimization prerequisites"). */
const LOG_GROUPS: Record<OptimizerType, string> = {
  compaction: '/aws-glue/iceberg-compaction/logs',
  retention: '/aws-glue/iceberg-retention/logs',
  orphan_file_deletion: '/aws-glue/iceberg-orphan-file-deletion/logs',
};

/** The Glue ARNs a table call is authorized on: the catalog, the database, the table. */
export function glueTableArns(stack: Stack, databaseName: string, tables: readonly string[]): string[] {
  const arn = (resource: string, resourceName?: string) =>
    stack.formatArn({ service: 'glue', resource, ...(resourceName === undefined ? {} : { resourceName }) });
  return [
    arn('catalog'),
    arn('database', databaseName),
    ...tables.map((t) => arn('table', `${databaseName}/${t}`)),
  ];
}

interface TableMaintenanceProps {
  readonly bucket: s3.Bucket;
  readonly prefix: string;
  readonly databaseName: string;
  /** The Iceberg tables, by dataset: the optimizers are created after them. */
  readonly tables: ReadonlyMap<LakeTableName, IConstruct>;
}

/**
 * Glue's table optimizers on every Iceberg table: compaction (bin-pack of small files),
 * snapshot retention (TABLE_RETENTION's days and count, the files of expired snapshots
 * deleted) and orphan-file deletion (files under the table no snapshot names, once
 * TABLE_RETENTION.orphanFileRetentionDays old). One role per optimizer, shared by the
 * tables, with what AWS documents that optimizer needs and no more: S3 on the tables'
 * prefix, GetTable (and UpdateTable for the two that commit) on these tables, its log group.
 */
export class TableMaintenance extends Construct {
  readonly roles: Record<OptimizerType, iam.Role>;
  readonly optimizers: glue.CfnTableOptimizer[] = [];

  constructor(scope: Construct, id: string, props: TableMaintenanceProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const datasets = [...props.tables.keys()];
    const objects = datasets.map((d) => props.bucket.arnForObjects(`${tableRootKey(props.prefix, d)}/*`));
    const glueArns = glueTableArns(stack, props.databaseName, datasets);

    const role = (type: OptimizerType): iam.Role => {
      // Orphan-file deletion only reads metadata and deletes: no UpdateTable, no PutObject.
      const commits = type !== 'orphan_file_deletion';
      const r = new iam.Role(this, `${pascal(type)}Role`, {
        assumedBy: new iam.ServicePrincipal('glue.amazonaws.com'),
        description: `report-export: the Glue ${type} optimizer of the Iceberg tables`,
      });
      r.addToPolicy(
        new iam.PolicyStatement({
          actions: ['s3:GetObject', 's3:DeleteObject', ...(commits ? ['s3:PutObject'] : [])],
          resources: objects,
        }),
      );
      r.addToPolicy(
        new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [props.bucket.bucketArn] }),
      );
      r.addToPolicy(
        new iam.PolicyStatement({
          actions: ['glue:GetTable', ...(commits ? ['glue:UpdateTable'] : [])],
          resources: glueArns,
        }),
      );
      r.addToPolicy(
        new iam.PolicyStatement({
          actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: [
            stack.formatArn({
              service: 'logs',
              resource: 'log-group',
              resourceName: `${LOG_GROUPS[type]}:*`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          ],
        }),
      );
      acknowledge(
        r,
        'AwsSolutions-IAM5',
        [
          ...datasets.map((d) => `Resource::${arnOf(props.bucket)}/${tableRootKey(props.prefix, d)}/*`),
          `Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:${LOG_GROUPS[type]}:*`,
        ],
        `Glue's ${type} optimizer acts on files of the Iceberg tables named at run time (data, manifests, metadata) and writes its own log streams; limited to the tables' locations and the log group AWS documents for it.`,
      );
      return r;
    };
    this.roles = {
      compaction: role('compaction'),
      retention: role('retention'),
      orphan_file_deletion: role('orphan_file_deletion'),
    };

    for (const [dataset, table] of props.tables) {
      for (const type of OPTIMIZER_TYPES) {
        const optimizer = new glue.CfnTableOptimizer(this, `${pascal(dataset)}${pascal(type)}`, {
          catalogId: stack.account,
          databaseName: props.databaseName,
          tableName: dataset,
          type,
          tableOptimizerConfiguration: {
            enabled: true,
            roleArn: this.roles[type].roleArn,
            ...configurationOf(type),
          },
        });
        optimizer.node.addDependency(table);
        // Glue checks the role when the optimizer is created: its policy must exist by then
        // (the role itself is already a dependency, through RoleArn).
        const policy = this.roles[type].node.tryFindChild('DefaultPolicy');
        if (policy !== undefined) optimizer.node.addDependency(policy);
        this.optimizers.push(optimizer);
      }
    }
  }
}

/** The settings of one optimizer type (compaction: Glue's defaults, bin-pack). */
function configurationOf(
  type: OptimizerType,
): Partial<glue.CfnTableOptimizer.TableOptimizerConfigurationProperty> {
  switch (type) {
    case 'compaction':
      return {};
    case 'retention':
      return {
        retentionConfiguration: {
          icebergConfiguration: {
            snapshotRetentionPeriodInDays: TABLE_RETENTION.snapshotRetentionDays,
            numberOfSnapshotsToRetain: TABLE_RETENTION.snapshotsToRetain,
            cleanExpiredFiles: true,
          },
        },
      };
    case 'orphan_file_deletion':
      return {
        orphanFileDeletionConfiguration: {
          icebergConfiguration: { orphanFileRetentionPeriodInDays: TABLE_RETENTION.orphanFileRetentionDays },
        },
      };
  }
}

const pascal = (s: string) =>
  s
    .split(/[_-]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
