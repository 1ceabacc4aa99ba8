/** Avro schemas as plain JSON objects (the types alone: avro-schema.ts compiles them, avro-codecs.ts encodes by them). */

export type AvroPrimitiveName = 'null' | 'boolean' | 'int' | 'long' | 'float' | 'double' | 'bytes' | 'string';

export interface AvroField {
  name: string;
  type: AvroSchema;
  default?: unknown;
  doc?: string;
  'field-id'?: number;
}

export interface AvroRecordSchema {
  type: 'record';
  name: string;
  namespace?: string;
  fields: AvroField[];
  doc?: string;
}

export interface AvroArraySchema {
  type: 'array';
  items: AvroSchema;
  'element-id'?: number;
  logicalType?: string;
}

export interface AvroMapSchema {
  type: 'map';
  values: AvroSchema;
  'key-id'?: number;
  'value-id'?: number;
}

export interface AvroFixedSchema {
  type: 'fixed';
  name: string;
  namespace?: string;
  size: number;
}

export interface AvroEnumSchema {
  type: 'enum';
  name: string;
  namespace?: string;
  symbols: string[];
}

/** A primitive in object form, e.g. `{ type: 'int', logicalType: 'date' }`. */
export interface AvroAnnotatedPrimitive {
  type: AvroPrimitiveName;
  logicalType?: string;
}

export type AvroSchema =
  | AvroPrimitiveName
  | string
  | AvroAnnotatedPrimitive
  | AvroRecordSchema
  | AvroArraySchema
  | AvroMapSchema
  | AvroFixedSchema
  | AvroEnumSchema
  | AvroSchema[];
