import { createHash } from 'node:crypto';
import * as path from 'node:path';
import {
  CustomResource,
  CustomResourceProvider,
  CustomResourceProviderRuntime,
  RemovalPolicy,
  Stack,
} from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { IcebergTableDefinition, LakeTableName } from './iceberg-tables';
import { acknowledge } from './nag-acknowledgements';
import { glueTableArns } from './table-maintenance';
import { PROJECT_ROOT } from './workflow-function';

/** The custom resource type of a table the stack creates once and never updates. */
export const CREATE_ONLY_TABLE_TYPE = 'Custom::CreateOnlyIcebergTable';

interface CreateOnlyIcebergTableProps {
  readonly databaseName: string;
  /** The lake's key prefix: with the database and the name, what makes the table this one. */
  readonly prefix: string;
  readonly definition: IcebergTableDefinition;
  /** The bucket ARN's object resource of the table's `metadata/` folder, where Glue writes the first metadata file. */
  readonly metadataObjects: string;
}

/**
 * An Iceberg table the stack creates and then leaves to its committer: one `glue:CreateTable`
 * (OpenTableFormatInput.IcebergInput, the definition an `AWS::Glue::Table` had) when the
 * resource is created, no call when it is updated, none when it is deleted (the table is
 * kept): the handler, lib/infra/table-creator/index.js. CloudFormation owning the table would put the template's definition back on every
 * update of it: an update of an Iceberg `AWS::Glue::Table` is reported to drop
 * `table_type=ICEBERG` and its parameters, and would reset `metadata_location`, hiding every
 * snapshot committed since. Here a changed setting changes the resource's `CreateTableInput`,
 * which only a Create reads.
 *
 * An existing Iceberg table of that name is adopted untouched (`AlreadyExistsException`, then
 * GetTable: `table_type=ICEBERG`): the upgrade from the stacks whose `AWS::Glue::Table`
 * (DeletionPolicy Retain) held it. Another table of the name (a Hive table not yet deleted)
 * fails the deployment, naming it.
 * What names the table (database, name, prefix) is in the construct id, so moving the lake
 * or the database makes a new resource that creates the table there.
 */
export class CreateOnlyIcebergTable extends Construct {
  readonly resource: CustomResource;
  readonly dataset: LakeTableName;

  constructor(scope: Construct, id: string, props: CreateOnlyIcebergTableProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const d = props.definition;
    this.dataset = d.name;
    const provider = creator(this);
    provider.addToRolePolicy({
      Effect: 'Allow',
      // GetTable: an existing table is adopted only if it is an Iceberg table.
      Action: ['glue:CreateTable', 'glue:GetTable'],
      Resource: glueTableArns(stack, props.databaseName, [d.name]),
    });
    // Glue writes the table's first metadata file with the caller's permissions.
    provider.addToRolePolicy({
      Effect: 'Allow',
      Action: ['s3:PutObject', 's3:GetObject'],
      Resource: props.metadataObjects,
    });
    const identity = createHash('sha256')
      .update(JSON.stringify([props.databaseName, d.name, props.prefix]))
      .digest('hex')
      .slice(0, 8)
      .toUpperCase();
    this.resource = new CustomResource(this, `Create${identity}`, {
      serviceToken: provider.serviceToken,
      resourceType: CREATE_ONLY_TABLE_TYPE,
      // Not even a Delete event when it leaves the stack: the table stays, with its history.
      removalPolicy: RemovalPolicy.RETAIN,
      // One JSON string: CloudFormation would pass numbers and booleans as strings.
      properties: { CreateTableInput: stack.toJsonString(createTableInput(stack.account, props)) },
    });
  }
}

/** The `glue:CreateTable` request of a table: its Iceberg definition in OpenTableFormatInput, no TableInput. */
function createTableInput(account: string, props: CreateOnlyIcebergTableProps): Record<string, unknown> {
  const d = props.definition;
  return {
    CatalogId: account,
    DatabaseName: props.databaseName,
    Name: d.name,
    OpenTableFormatInput: {
      IcebergInput: {
        MetadataOperation: 'CREATE',
        Version: '2',
        CreateIcebergTableInput: {
          Location: d.location,
          Schema: {
            SchemaId: d.schema.schemaId,
            Type: d.schema.type,
            Fields: d.schema.fields.map((f) => ({
              Id: f.id,
              Name: f.name,
              Type: f.type,
              Required: f.required,
              ...(f.doc === undefined ? {} : { Doc: f.doc }),
            })),
          },
          PartitionSpec: {
            SpecId: d.partitionSpec.specId,
            Fields: d.partitionSpec.fields.map((f) => ({
              SourceId: f.sourceId,
              FieldId: f.fieldId,
              Name: f.name,
              Transform: f.transform,
            })),
          },
          Properties: d.properties,
        },
      },
    },
  };
}

/** The id of the stack's one table-creating provider (its function and role). */
const CREATOR_ID = 'CreateOnlyIcebergTableCreator';

/** The function every create-only table of the stack is created by (lib/infra/table-creator). */
function creator(scope: Construct): CustomResourceProvider {
  return CustomResourceProvider.getOrCreateProvider(scope, CREATOR_ID, {
    codeDirectory: path.join(PROJECT_ROOT, 'lib', 'infra', 'table-creator'),
    runtime: CustomResourceProviderRuntime.NODEJS_22_X,
    description:
      'report-export: creates an Iceberg table once (glue:CreateTable); never updates or deletes it',
  });
}

/** The role ARN of the table creator, if the stack has one (the bucket policy lets it write a new table's metadata). */
export function tableCreatorRoleArn(scope: Construct): string | undefined {
  const stack = Stack.of(scope);
  return stack.node.tryFindChild(`${CREATOR_ID}CustomResourceProvider`) === undefined
    ? undefined
    : creator(scope).roleArn;
}

/** What cdk-nag finds on the table creator, acknowledged (after the tables are made). */
export function acknowledgeTableCreator(scope: Construct, metadataFindings: readonly string[]): void {
  const provider = Stack.of(scope).node.tryFindChild(`${CREATOR_ID}CustomResourceProvider`);
  if (provider === undefined) return;
  acknowledge(
    provider,
    'AwsSolutions-IAM5',
    metadataFindings,
    "Glue writes a new table's first metadata file, named at creation, under the table's metadata/ folder.",
  );
  acknowledge(
    provider,
    'AwsSolutions-L1',
    undefined,
    'nodejs22.x as the workflow functions: one CommonJS handler on the runtime SDK, run once per table.',
  );
}
