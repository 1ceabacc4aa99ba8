import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import { Construct } from 'constructs';
import { DATASETS, type Dataset, type PromotedColumn, tableSchema } from '../export';
import { CreateOnlyIcebergTable } from './create-only-table';
import { ICEBERG_DATASETS, icebergTableDefinition } from './iceberg-tables';
import {
  callsTableInput,
  type LakeLocation,
  type LakeTableInput,
  runsTableInput,
  summariesTableInput,
} from './lake-tables';

/** How the Parquet datasets are registered (see lib/infra/README.md, "The tables"). */
export type TableFormat = 'iceberg' | 'hive';

interface LakeCatalogProps {
  /** Name of the data lake bucket. */
  readonly bucketName: string;
  readonly prefix: string;
  readonly dataset: string;
  /** Members promoted to typed columns, per dataset. */
  readonly promotedColumns?: Partial<Record<Dataset, readonly PromotedColumn[] | undefined>>;
  /** Configured report ids: the `report_id` enum of the projection. */
  readonly reportIds: readonly string[];
  /** First `dt` Athena projects (YYYY-MM-DD): the first day the deployment exports. */
  readonly dataStartDate: string;
  /** Glue database name. */
  readonly databaseName: string;
  /**
   * `iceberg`: `calls` and `summaries` are Iceberg v2 tables the stack creates once, kept by
   * Glue's table optimizers; `hive`: Parquet tables over the Hive-layout folders, with
   * partition projection.
   * @default 'iceberg'
   */
  readonly tableFormat?: TableFormat;
  /**
   * A multi-tenant lake: the Iceberg tables have the `tenant` column and partition, the run
   * records table a `tenant` partition.
   * @default false
   */
  readonly tenants?: boolean;
  /** The object ARN pattern of a table's `metadata/` folder (`<bucket ARN>/<table>/metadata/*`). */
  readonly tableMetadataObjects: (dataset: Dataset) => string;
  /** Name of the bucket of Athena query results (never under a table's location). */
  readonly queryResultsBucketName: string;
  /**
   * Most bytes one query of the workgroup may scan.
   * @default 10 GiB
   */
  readonly bytesScannedCutoffPerQuery?: number;
  /**
   * Workgroup name.
   * @default the database name with `-` for `_`
   */
  readonly workGroupName?: string;
}

/**
 * What Athena needs and nothing more: a Glue database, the Parquet tables (calls,
 * summaries: Iceberg tables, or Hive-layout tables with partition projection), the run
 * records table (partition projection: no crawler, no MSCK REPAIR), and a workgroup that
 * enforces its encrypted result location and a per-query scan limit.
 * No CSV table: see lib/infra/README.md ("Why there is no CSV table").
 */
export class LakeCatalog extends Construct {
  readonly database: glue.CfnDatabase;
  /** The Hive-layout tables (`tableFormat: 'hive'`); the Iceberg ones are `icebergTables`. */
  readonly hiveTables: glue.CfnTable[] = [];
  /** The Iceberg tables by dataset (none with `tableFormat: 'hive'`). */
  readonly icebergTables = new Map<Dataset, CreateOnlyIcebergTable>();
  readonly runsTable: glue.CfnTable;
  readonly workGroup: athena.CfnWorkGroup;

  constructor(scope: Construct, id: string, props: LakeCatalogProps) {
    super(scope, id);
    const account = Stack.of(this).account;
    this.database = new glue.CfnDatabase(this, 'Database', {
      catalogId: account,
      databaseInput: { name: props.databaseName, description: 'report-export: the call-reporting data lake' },
    });
    const location: LakeLocation = {
      bucket: props.bucketName,
      prefix: props.prefix,
      dataset: props.dataset,
      reportIds: props.reportIds,
      dataStartDate: props.dataStartDate,
      tenants: props.tenants ?? false,
    };
    const table = (tableId: string, input: LakeTableInput) => {
      const t = new glue.CfnTable(this, tableId, {
        catalogId: account,
        databaseName: props.databaseName,
        tableInput: {
          name: input.name,
          description: input.description,
          tableType: input.tableType,
          parameters: input.parameters,
          partitionKeys: input.partitionKeys.map(toCfnColumn),
          storageDescriptor: {
            location: input.storageDescriptor.location,
            columns: input.storageDescriptor.columns.map(toCfnColumn),
            inputFormat: input.storageDescriptor.inputFormat,
            outputFormat: input.storageDescriptor.outputFormat,
            serdeInfo: input.storageDescriptor.serdeInfo,
          },
        },
      });
      t.node.addDependency(this.database);
      return t;
    };
    const promoted = props.promotedColumns ?? {};
    if ((props.tableFormat ?? 'iceberg') === 'iceberg') {
      for (const dataset of ICEBERG_DATASETS) {
        // Logical ids apart from the Hive tables': a table changes kind by being created anew
        // (see the README's move from the Hive layout), never by an update.
        this.icebergTables.set(dataset, this.#icebergTable(dataset, props));
      }
    } else {
      this.hiveTables.push(
        table(
          'CallsTable',
          callsTableInput(location, tableSchema({ dataset: DATASETS.calls, promoted: promoted.calls ?? [] })),
        ),
        table('SummariesTable', summariesTableInput(location, promoted.summaries ?? [])),
      );
      // Kept when removed from the stack: the move to Iceberg deletes them by hand first, so
      // that the stack can create the Iceberg tables under the same names, and CloudFormation's
      // cleanup must not then delete those names.
      for (const t of this.hiveTables) t.applyRemovalPolicy(RemovalPolicy.RETAIN);
    }
    this.runsTable = table('RunsTable', runsTableInput(location));

    this.workGroup = new athena.CfnWorkGroup(this, 'WorkGroup', {
      name: props.workGroupName ?? props.databaseName.replaceAll('_', '-'),
      description:
        'report-export: queries of the data lake (enforced result location, encryption, scan limit)',
      // Lets `cdk destroy` remove a workgroup that has saved queries or history.
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: props.bytesScannedCutoffPerQuery ?? 10 * 1024 ** 3,
        engineVersion: { selectedEngineVersion: 'AUTO' },
        resultConfiguration: {
          outputLocation: `s3://${props.queryResultsBucketName}/athena/`,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });
  }

  /**
   * An Iceberg table the stack creates once and then leaves to the committer
   * (create-only-table.ts): no stack update rewrites its definition or its pointer.
   */
  #icebergTable(dataset: Dataset, props: LakeCatalogProps): CreateOnlyIcebergTable {
    const t = new CreateOnlyIcebergTable(
      this,
      `${dataset === DATASETS.calls ? 'Calls' : 'Summaries'}IcebergTable`,
      {
        databaseName: props.databaseName,
        prefix: props.prefix,
        definition: icebergTableDefinition(props.bucketName, props.prefix, dataset, props.tenants ?? false),
        metadataObjects: props.tableMetadataObjects(dataset),
      },
    );
    t.node.addDependency(this.database);
    return t;
  }
}

function toCfnColumn(c: { Name: string; Type: string; Comment: string }): glue.CfnTable.ColumnProperty {
  return { name: c.Name, type: c.Type, comment: c.Comment };
}
