import {
  CONTACT_DATASETS,
  type ContactDataset,
  contactPhonesColumns,
  contactsColumns,
  DATASETS,
  type Dataset,
  initialSchema,
  type LakeTableSchema,
  partitionSpec,
  TABLE_RETENTION,
  tableProperties,
  tableSchema,
} from '../export';
import { tableRootKey } from '../stores';

/**
 * The Iceberg tables of the lake (`tableFormat: 'iceberg'`) as plain data: where each lives,
 * the schema and partition spec CloudFormation creates it with (both from the export's own
 * schema mapping, so the stack and the writer cannot disagree on a field id), and the
 * maintenance the Glue table optimizers apply. No CDK types: tests compare them with the
 * export's table layout.
 */

/**
 * How long the tables keep their history, and so how far back `FOR TIMESTAMP AS OF` reaches:
 * the export's TABLE_RETENTION (lib/export/table/retention.ts), one number for the stack's
 * retention optimizer, the tables' `history.expire.*` properties (what an Iceberg engine's
 * own expiry reads) and the local lake's commits.
 */
export { TABLE_RETENTION };

/**
 * Table properties the tables are created with (none depends on configuration): the
 * export's own (Parquet files, the metadata log's length `PREVIOUS_VERSIONS_MAX`, the
 * retention as Iceberg's expiry reads it). Not `write.metadata.delete-after-commit`: the
 * export's commits do not delete the metadata files the log drops, orphan-file deletion does.
 */
export function icebergTableProperties(tenancy: { tenanted?: boolean } = {}): Record<string, string> {
  return tableProperties(tenancy);
}

/** A table of the lake: a report dataset's (`calls`, `summaries`) or a contact directory table. */
export type LakeTableName = Dataset | ContactDataset;

/** What CloudFormation creates one Iceberg table from (`IcebergInput.IcebergTableInput`). */
export interface IcebergTableDefinition {
  readonly name: LakeTableName;
  readonly location: string;
  readonly schema: {
    readonly type: 'struct';
    readonly schemaId: number;
    readonly fields: { id: number; name: string; type: string; required: boolean; doc?: string }[];
  };
  readonly partitionSpec: {
    readonly specId: number;
    readonly fields: { sourceId: number; fieldId: number; name: string; transform: string }[];
  };
  readonly properties: Record<string, string>;
}

/**
 * A dataset's table as CloudFormation creates it: the dataset's base columns (no promoted
 * ones) with field ids 1..n, then `dt`, partitioned by identity(report_id), identity(dt);
 * a multi-tenant lake's (`tenants`) with the required `tenant` column first and
 * identity(tenant) the first partition field (ids 1000, 1001, 1002), as the export's schema
 * mapping writes them. One table per dataset for every tenant, so one query spans them.
 *
 * Promoted columns are not part of the template on purpose: the export adds each one to the
 * live table with a new field id (a schema-only commit) before it writes data. Were they in
 * the template, changing `promotedColumns` would make CloudFormation update the table with a
 * schema numbered from scratch (a promoted column takes the id `dt` has in the live table),
 * and an update of an Iceberg `AWS::Glue::Table` is where CloudFormation is known to lose the
 * table's `metadata_location` (aws-cloudformation/cloudformation-coverage-roadmap #1919,
 * #2495). Nothing in this definition depends on a setting but the bucket, the prefix and
 * the database, so a deploy after the first leaves the tables alone.
 *
 * A contact table (`contacts`, `contact_phones`) is made from the export's contact columns
 * (the deployment's `contactOmitFields` left out, the `tenant` column first in a multi-tenant
 * lake), partitioned by identity(directory_id) after identity(tenant): what the committer's
 * ensureTable would make, so PrepareTables finds it current. A change of `contactOmitFields`
 * after the first deploy reaches the live table as PrepareTables' schema evolution, never as
 * a template update (the same reason as the promoted columns').
 */
export function icebergTableDefinition(
  bucket: string,
  prefix: string,
  table: LakeTableName,
  tenants = false,
  contactOmitFields: readonly string[] = [],
): IcebergTableDefinition {
  const tenancy = { tenanted: tenants };
  const source = lakeTableSchema(table, tenants, contactOmitFields);
  const schema = initialSchema(source, tenancy);
  const spec = partitionSpec(schema, tenancy, isContactTable(table) ? 'directory' : 'report');
  return {
    name: table,
    location: `s3://${bucket}/${tableRootKey(prefix, table)}`,
    schema: {
      type: schema.type,
      schemaId: schema['schema-id'],
      fields: schema.fields.map((f) => ({
        id: f.id,
        name: f.name,
        type: f.type,
        required: f.required,
        ...(f.doc === undefined ? {} : { doc: f.doc }),
      })),
    },
    partitionSpec: {
      specId: spec['spec-id'],
      fields: spec.fields.map((f) => ({
        sourceId: f['source-id'],
        fieldId: f['field-id'],
        name: f.name,
        transform: f.transform,
      })),
    },
    properties: icebergTableProperties(tenancy),
  };
}

/** Whether a table is a contact directory table (partitioned by directory, no CSV). */
export function isContactTable(table: LakeTableName): table is ContactDataset {
  return (Object.values(CONTACT_DATASETS) as string[]).includes(table);
}

function lakeTableSchema(
  table: LakeTableName,
  tenanted: boolean,
  omitFields: readonly string[],
): LakeTableSchema {
  if (table === CONTACT_DATASETS.contacts) return contactsColumns({ omitFields, tenanted });
  if (table === CONTACT_DATASETS.contactPhones) return contactPhonesColumns({ tenanted });
  return tableSchema({ dataset: table, promoted: [] });
}

/** The datasets that are Iceberg tables (CSV stays files; the run records stay JSON). */
export const ICEBERG_DATASETS: readonly Dataset[] = [DATASETS.calls, DATASETS.summaries];

/** The contact directory tables (issue 29): Iceberg only, beside the datasets' tables. */
export const CONTACT_TABLES: readonly ContactDataset[] = Object.values(CONTACT_DATASETS);

/** Every Iceberg table of the lake: the datasets' then the contact tables. */
export const ICEBERG_TABLES: readonly LakeTableName[] = [...ICEBERG_DATASETS, ...CONTACT_TABLES];

/**
 * The key prefix (no trailing `/`) of a table's metadata: its metadata files, manifest lists
 * and manifests, which only the committer (and Glue's optimizers) may write.
 */
export function tableMetadataPrefix(prefix: string, table: LakeTableName): string {
  return `${tableRootKey(prefix, table)}/metadata`;
}
