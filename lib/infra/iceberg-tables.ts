import {
  DATASETS,
  type Dataset,
  initialSchema,
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

/** What CloudFormation creates one Iceberg table from (`IcebergInput.IcebergTableInput`). */
export interface IcebergTableDefinition {
  readonly name: Dataset;
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
 */
export function icebergTableDefinition(
  bucket: string,
  prefix: string,
  dataset: Dataset,
  tenants = false,
): IcebergTableDefinition {
  const tenancy = { tenanted: tenants };
  const schema = initialSchema(tableSchema({ dataset, promoted: [] }), tenancy);
  const spec = partitionSpec(schema, tenancy);
  return {
    name: dataset,
    location: `s3://${bucket}/${tableRootKey(prefix, dataset)}`,
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

/** The datasets that are Iceberg tables (CSV stays files; the run records stay JSON). */
export const ICEBERG_DATASETS: readonly Dataset[] = [DATASETS.calls, DATASETS.summaries];

/**
 * The key prefix (no trailing `/`) of a table's metadata: its metadata files, manifest lists
 * and manifests, which only the committer (and Glue's optimizers) may write.
 */
export function tableMetadataPrefix(prefix: string, dataset: Dataset): string {
  return `${tableRootKey(prefix, dataset)}/metadata`;
}
