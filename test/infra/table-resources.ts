import type { Template } from 'aws-cdk-lib/assertions';
import { CREATE_ONLY_TABLE_TYPE } from '../../lib/infra/create-only-table';

/**
 * The Iceberg tables of a synthesized stack as the custom resources that create them: each
 * one's `CreateTableInput` (the glue:CreateTable request its handler sends on Create),
 * parsed, with the template's references shown as `{{Ref:<id>}}` and `{{<id>.<attribute>}}`.
 */

type Json = unknown;

/** A CloudFormation value of strings, `Fn::Join`, `Ref` and `Fn::GetAtt` as text. */
export function cfnText(value: Json): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, Json>;
  if ('Fn::Join' in v) {
    const [sep, parts] = v['Fn::Join'] as [string, Json[]];
    return parts.map(cfnText).join(sep);
  }
  if ('Ref' in v) return `{{Ref:${String(v.Ref)}}}`;
  if ('Fn::GetAtt' in v) return `{{${(v['Fn::GetAtt'] as string[]).join('.')}}}`;
  throw new Error(`no text for ${JSON.stringify(value)}`);
}

export interface CreateOnlyTable {
  logicalId: string;
  resource: { Type: string; Properties: Record<string, Json>; DeletionPolicy?: string; DependsOn?: string[] };
  /** The glue:CreateTable request made when CloudFormation creates the resource. */
  create: Record<string, unknown>;
  /** The Iceberg definition the call creates the table with (`CreateIcebergTableInput`). */
  input: {
    Location: string;
    Schema: {
      Type: string;
      SchemaId: number;
      Fields: { Id: number; Name: string; Type: string; Required: boolean; Doc?: string }[];
    };
    PartitionSpec: {
      SpecId: number;
      Fields: { SourceId: number; FieldId: number; Name: string; Transform: string }[];
    };
    Properties: Record<string, string>;
  };
}

/** Every create-only table of the template. */
export function createOnlyTables(t: Template): CreateOnlyTable[] {
  return Object.entries(t.findResources(CREATE_ONLY_TABLE_TYPE)).map(([logicalId, resource]) => {
    const r = resource as CreateOnlyTable['resource'];
    const create = JSON.parse(cfnText(r.Properties.CreateTableInput)) as Record<string, unknown>;
    const iceberg = (create.OpenTableFormatInput as { IcebergInput: Record<string, unknown> }).IcebergInput;
    return {
      logicalId,
      resource: r,
      create,
      input: iceberg.CreateIcebergTableInput as CreateOnlyTable['input'],
    };
  });
}

/** The create-only table of a dataset (its `Name`). */
export function createOnlyTable(t: Template, dataset: string): CreateOnlyTable {
  const found = createOnlyTables(t).find((c) => c.create.Name === dataset);
  if (found === undefined) throw new Error(`no create-only table ${dataset}`);
  return found;
}
