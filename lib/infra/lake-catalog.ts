import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import { Construct } from 'constructs';
import {
  CALLS_WITH_CONTACTS_VIEW,
  callsWithContactsSql,
  DATASETS,
  type Dataset,
  type PromotedColumn,
  tableSchema,
} from '../export';
import { CreateOnlyIcebergTable } from './create-only-table';
import { ICEBERG_TABLES, icebergTableDefinition, type LakeTableName } from './iceberg-tables';
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
  readonly tableMetadataObjects: (table: LakeTableName) => string;
  /**
   * Contact fields left out of the `contacts` table (the stack's `contactOmitFields`).
   * @default []
   */
  readonly contactOmitFields?: readonly string[];
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
  /** The Iceberg tables by name: the datasets' and the contact tables (none with `tableFormat: 'hive'`). */
  readonly icebergTables = new Map<LakeTableName, CreateOnlyIcebergTable>();
  readonly runsTable: glue.CfnTable;
  readonly workGroup: athena.CfnWorkGroup;
  /**
   * The saved query that creates the `calls_with_contacts` view (Athena's dialect), with the
   * Iceberg tables; a view is made by running it once (Athena keeps views in Glue).
   */
  readonly callsWithContactsQuery: athena.CfnNamedQuery | undefined;

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
      for (const dataset of ICEBERG_TABLES) {
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
    // A named query, not a Glue view resource: an Athena view in Glue is a Presto view
    // encoded in the table's ViewOriginalText, which Athena alone writes; the saved query is
    // what Athena's console offers to run, and re-running it replaces the view.
    this.callsWithContactsQuery =
      this.icebergTables.size === 0
        ? undefined
        : new athena.CfnNamedQuery(this, 'CallsWithContactsQuery', {
            name: `${props.databaseName}: create view ${CALLS_WITH_CONTACTS_VIEW}`,
            description:
              'Every call once with the contact valid at its start whose phone matches its external number (report-export). Run once; again to replace.',
            database: props.databaseName,
            workGroup: this.workGroup.ref,
            queryString: callsWithContactsSql({
              dialect: 'athena',
              tenanted: props.tenants ?? false,
              database: props.databaseName,
              omitFields: props.contactOmitFields ?? [],
            }),
          });
  }

  /**
   * An Iceberg table the stack creates once and then leaves to the committer
   * (create-only-table.ts): no stack update rewrites its definition or its pointer.
   */
  #icebergTable(dataset: LakeTableName, props: LakeCatalogProps): CreateOnlyIcebergTable {
    const t = new CreateOnlyIcebergTable(this, `${TABLE_CONSTRUCT_NAMES[dataset]}IcebergTable`, {
      databaseName: props.databaseName,
      prefix: props.prefix,
      definition: icebergTableDefinition(
        props.bucketName,
        props.prefix,
        dataset,
        props.tenants ?? false,
        props.contactOmitFields ?? [],
      ),
      metadataObjects: props.tableMetadataObjects(dataset),
    });
    t.node.addDependency(this.database);
    return t;
  }
}

/** Construct ids of the Iceberg tables (`CallsIcebergTable`, ...): fixed, so a deploy keeps each resource. */
const TABLE_CONSTRUCT_NAMES: Record<LakeTableName, string> = {
  calls: 'Calls',
  summaries: 'Summaries',
  contacts: 'Contacts',
  contact_phones: 'ContactPhones',
};

function toCfnColumn(c: { Name: string; Type: string; Comment: string }): glue.CfnTable.ColumnProperty {
  return { name: c.Name, type: c.Type, comment: c.Comment };
}
