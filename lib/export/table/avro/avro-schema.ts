import { AvroError } from './avro-bytes';
import {
  type AvroCodec,
  blocksCodec,
  emptyRecord,
  enumCodec,
  fixedCodec,
  isRecordLike,
  mismatch,
  primitiveCodec,
} from './avro-codecs';

/**
 * Avro schemas as plain JSON objects, and their compilation into codecs: named types
 * registered by name and full name, references resolved, nesting bounded by MAX_SCHEMA_DEPTH,
 * a type referring to itself refused (so data never nests deeper than the schema).
 */

import type {
  AvroArraySchema,
  AvroEnumSchema,
  AvroFixedSchema,
  AvroMapSchema,
  AvroPrimitiveName,
  AvroRecordSchema,
  AvroSchema,
} from './avro-types';

/** Named types nest no deeper than this; our schemas use 5 levels. */
export const MAX_SCHEMA_DEPTH = 32;

const PRIMITIVES = new Set<string>(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);
/** Compiles a schema into codecs; named types are registered by name and full name. */
class SchemaCompiler {
  private readonly named = new Map<string, AvroCodec | 'defining'>();

  compile(schema: AvroSchema, path: string, depth: number, namespace: string | undefined): AvroCodec {
    if (depth > MAX_SCHEMA_DEPTH)
      throw new AvroError(`Avro schema at ${path} nests deeper than ${MAX_SCHEMA_DEPTH}`);
    if (typeof schema === 'string') {
      if (PRIMITIVES.has(schema)) return primitiveCodec(schema as AvroPrimitiveName, path);
      return this.reference(schema, path, namespace);
    }
    if (Array.isArray(schema)) return this.union(schema, path, depth, namespace);
    if (typeof schema !== 'object' || schema === null || typeof schema.type !== 'string') {
      throw new AvroError(`Avro schema at ${path} is not a type: ${JSON.stringify(schema)}`);
    }
    switch (schema.type) {
      case 'record':
        return this.record(schema as AvroRecordSchema, path, depth, namespace);
      case 'array': {
        const items = this.compile((schema as AvroArraySchema).items, `${path}[]`, depth + 1, namespace);
        return blocksCodec(path, items, undefined);
      }
      case 'map': {
        const values = this.compile((schema as AvroMapSchema).values, `${path}{}`, depth + 1, namespace);
        return blocksCodec(path, values, primitiveCodec('string', `${path} key`));
      }
      case 'fixed':
        return this.define(schema as AvroFixedSchema, namespace, path, () =>
          fixedCodec(schema as AvroFixedSchema, path),
        );
      case 'enum':
        return this.define(schema as AvroEnumSchema, namespace, path, () =>
          enumCodec(schema as AvroEnumSchema, path),
        );
      default:
        if (PRIMITIVES.has(schema.type)) return primitiveCodec(schema.type as AvroPrimitiveName, path);
        return this.reference(schema.type, path, namespace);
    }
  }

  private fullName(name: string, namespace: string | undefined): string {
    return name.includes('.') || namespace === undefined || namespace === '' ? name : `${namespace}.${name}`;
  }

  private reference(name: string, path: string, namespace: string | undefined): AvroCodec {
    const found = this.named.get(this.fullName(name, namespace)) ?? this.named.get(name);
    if (found === 'defining')
      throw new AvroError(`Avro schema at ${path}: recursive type ${name} is not supported`);
    if (found === undefined)
      throw new AvroError(`Avro schema at ${path}: unknown type ${JSON.stringify(name)}`);
    return found;
  }

  private define(
    schema: { name: string; namespace?: string },
    namespace: string | undefined,
    path: string,
    build: () => AvroCodec,
  ): AvroCodec {
    if (typeof schema.name !== 'string' || schema.name === '')
      throw new AvroError(`Avro schema at ${path}: a named type has no name`);
    const full = this.fullName(schema.name, schema.namespace ?? namespace);
    if (this.named.has(full)) throw new AvroError(`Avro schema at ${path}: type ${full} is defined twice`);
    this.named.set(full, 'defining');
    const codec = build();
    this.named.set(full, codec);
    return codec;
  }

  private record(
    schema: AvroRecordSchema,
    path: string,
    depth: number,
    namespace: string | undefined,
  ): AvroCodec {
    if (!Array.isArray(schema.fields))
      throw new AvroError(`Avro schema at ${path}: record ${schema.name} has no fields`);
    const ownNamespace = schema.name?.includes('.')
      ? schema.name.slice(0, schema.name.lastIndexOf('.'))
      : (schema.namespace ?? namespace);
    return this.define(schema, namespace, path, () => {
      const names: string[] = [];
      const codecs: AvroCodec[] = [];
      const defaults: { has: boolean; value: unknown }[] = [];
      for (const field of schema.fields) {
        if (typeof field?.name !== 'string')
          throw new AvroError(`Avro schema at ${path}: a field has no name`);
        names.push(field.name);
        codecs.push(this.compile(field.type, `${path}.${field.name}`, depth + 1, ownNamespace));
        defaults.push({ has: 'default' in field, value: field.default });
      }
      const n = names.length;
      return {
        read: (src) => {
          const out = emptyRecord();
          for (let i = 0; i < n; i++) out[names[i] as string] = (codecs[i] as AvroCodec).read(src);
          return out;
        },
        write: (s, v) => {
          if (!isRecordLike(v)) throw mismatch(path, `a ${schema.name} record`, v);
          for (let i = 0; i < n; i++) {
            let value = v[names[i] as string];
            if (value === undefined) {
              const d = defaults[i] as { has: boolean; value: unknown };
              if (!d.has)
                throw new AvroError(
                  `Avro value at ${path}.${names[i]}: missing, and the field has no default`,
                );
              value = d.value;
            }
            (codecs[i] as AvroCodec).write(s, value);
          }
        },
        accepts: isRecordLike,
      };
    });
  }

  private union(
    branches: AvroSchema[],
    path: string,
    depth: number,
    namespace: string | undefined,
  ): AvroCodec {
    const codecs = branches.map((b, i) => {
      if (Array.isArray(b)) throw new AvroError(`Avro schema at ${path}: a union directly inside a union`);
      return this.compile(b, `${path}<${i}>`, depth + 1, namespace);
    });
    const indexPath = `${path} union index`;
    return {
      read: (src) => {
        const index = src.smallLong(indexPath);
        const codec = codecs[index];
        if (codec === undefined)
          throw new AvroError(`Avro ${src.what}: ${path} union index ${index} is out of range`);
        return codec.read(src);
      },
      write: (s, v) => {
        const index = codecs.findIndex((c) => c.accepts(v));
        if (index < 0) throw mismatch(path, `one of ${JSON.stringify(branches)}`, v);
        s.varint(index);
        (codecs[index] as AvroCodec).write(s, v);
      },
      accepts: (v) => codecs.some((c) => c.accepts(v)),
    };
  }
}
/** Compiles a schema; throws AvroError on an unknown type. Exposed for tests and schema checks. */
export function compileSchema(schema: AvroSchema): AvroCodec {
  return new SchemaCompiler().compile(schema, rootName(schema), 0, undefined);
}

function rootName(schema: AvroSchema): string {
  return typeof schema === 'object' && !Array.isArray(schema) && 'name' in schema ? schema.name : 'value';
}
