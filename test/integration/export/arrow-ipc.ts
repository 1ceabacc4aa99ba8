/**
 * A minimal reader of the Arrow IPC stream format, enough to read what parquet-wasm
 * (arrow-rs) makes of our Parquet files without adding `apache-arrow`: flat columns of
 * Int, FloatingPoint, Utf8/LargeUtf8 and Timestamp, uncompressed, no dictionaries.
 * Anything else throws, so a test cannot pass by reading less than it thinks.
 *
 * Format: https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc
 * (messages are flatbuffers, Schema.fbs and Message.fbs).
 */

/** A column's Arrow type as far as the tests need it. */
export type ArrowType =
  | { kind: 'int'; bitWidth: number; signed: boolean }
  | { kind: 'float'; precision: number }
  | { kind: 'utf8'; large: boolean }
  | { kind: 'bool' }
  | { kind: 'timestamp'; unit: number; timezone: string | null };

export interface ArrowField {
  name: string;
  nullable: boolean;
  type: ArrowType;
}

export interface ArrowTable {
  fields: ArrowField[];
  /** Rows as objects: numbers, strings, timestamps as numbers in their unit, null for null. */
  rows: Record<string, number | string | boolean | null>[];
}

/** A flatbuffers table: fields through its vtable. */
class FbTable {
  constructor(
    readonly view: DataView,
    readonly pos: number,
  ) {}

  static root(view: DataView, at: number): FbTable {
    return new FbTable(view, at + view.getUint32(at, true));
  }

  /** Where field `i` is, or 0 when absent. */
  offset(i: number): number {
    const vtable = this.pos - this.view.getInt32(this.pos, true);
    const size = this.view.getUint16(vtable, true);
    return 4 + 2 * i < size ? this.view.getUint16(vtable + 4 + 2 * i, true) : 0;
  }

  u8(i: number, fallback = 0): number {
    const o = this.offset(i);
    return o === 0 ? fallback : this.view.getUint8(this.pos + o);
  }

  i16(i: number, fallback = 0): number {
    const o = this.offset(i);
    return o === 0 ? fallback : this.view.getInt16(this.pos + o, true);
  }

  i32(i: number, fallback = 0): number {
    const o = this.offset(i);
    return o === 0 ? fallback : this.view.getInt32(this.pos + o, true);
  }

  i64(i: number): number {
    const o = this.offset(i);
    return o === 0 ? 0 : Number(this.view.getBigInt64(this.pos + o, true));
  }

  table(i: number): FbTable | undefined {
    const o = this.offset(i);
    if (o === 0) return undefined;
    const at = this.pos + o;
    return new FbTable(this.view, at + this.view.getUint32(at, true));
  }

  string(i: number): string | null {
    const o = this.offset(i);
    if (o === 0) return null;
    const at = this.pos + o;
    const s = at + this.view.getUint32(at, true);
    const length = this.view.getUint32(s, true);
    return Buffer.from(this.view.buffer, this.view.byteOffset + s + 4, length).toString('utf8');
  }

  /** A vector's element count and where its first element is. */
  vector(i: number): { start: number; length: number } {
    const o = this.offset(i);
    if (o === 0) return { start: 0, length: 0 };
    const at = this.pos + o;
    const v = at + this.view.getUint32(at, true);
    return { start: v + 4, length: this.view.getUint32(v, true) };
  }

  /** Element `k` of a vector of tables. */
  tableAt(i: number, k: number): FbTable {
    const at = this.vector(i).start + 4 * k;
    return new FbTable(this.view, at + this.view.getUint32(at, true));
  }
}

const MESSAGE = { schema: 1, dictionaryBatch: 2, recordBatch: 3 } as const;
const TYPE = { int: 2, floatingPoint: 3, utf8: 5, bool: 6, timestamp: 10, largeUtf8: 20 } as const;

function fieldOf(t: FbTable): ArrowField {
  const name = t.string(0) ?? '';
  const typeType = t.u8(2);
  const type = t.table(3);
  if (t.table(4) !== undefined) throw new Error(`${name}: dictionary-encoded fields are not read here`);
  if (t.vector(5).length > 0) throw new Error(`${name}: nested fields are not read here`);
  let arrow: ArrowType;
  if (typeType === TYPE.int) arrow = { kind: 'int', bitWidth: type?.i32(0) ?? 0, signed: type?.u8(1) === 1 };
  else if (typeType === TYPE.floatingPoint) arrow = { kind: 'float', precision: type?.i16(0) ?? 0 };
  else if (typeType === TYPE.utf8) arrow = { kind: 'utf8', large: false };
  else if (typeType === TYPE.largeUtf8) arrow = { kind: 'utf8', large: true };
  else if (typeType === TYPE.bool) arrow = { kind: 'bool' };
  else if (typeType === TYPE.timestamp)
    arrow = { kind: 'timestamp', unit: type?.i16(0) ?? 0, timezone: type?.string(1) ?? null };
  else throw new Error(`${name}: Arrow type ${typeType} is not read here`);
  return { name, nullable: t.u8(1) === 1, type: arrow };
}

/** Decodes an Arrow IPC stream (e.g. parquet-wasm's `Table.intoIPCStream()`). */
export function readArrowIpcStream(bytes: Uint8Array): ArrowTable {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let fields: ArrowField[] | undefined;
  const rows: Record<string, number | string | boolean | null>[] = [];
  let o = 0;
  while (o + 8 <= bytes.length) {
    let metaLength = view.getInt32(o, true);
    let meta = o + 4;
    if (metaLength === -1) {
      metaLength = view.getInt32(o + 4, true);
      meta = o + 8;
    }
    if (metaLength === 0) break; // end of stream
    const message = FbTable.root(view, meta);
    const headerType = message.u8(1);
    const header = message.table(2) as FbTable;
    const body = meta + metaLength;
    if (headerType === MESSAGE.schema) {
      fields = Array.from({ length: header.vector(1).length }, (_, k) => fieldOf(header.tableAt(1, k)));
    } else if (headerType === MESSAGE.recordBatch) {
      if (fields === undefined) throw new Error('record batch before the schema');
      if (header.table(3) !== undefined) throw new Error('compressed record batches are not read here');
      readBatch(view, header, body, fields, rows);
    } else {
      throw new Error(`message type ${headerType} is not read here`);
    }
    o = body + message.i64(3);
  }
  return { fields: fields ?? [], rows };
}

function readBatch(
  view: DataView,
  batch: FbTable,
  body: number,
  fields: ArrowField[],
  rows: Record<string, number | string | boolean | null>[],
): void {
  const length = batch.i64(0);
  const buffers = batch.vector(2);
  const buffer = (k: number) => ({
    at: body + Number(view.getBigInt64(buffers.start + 16 * k, true)),
    length: Number(view.getBigInt64(buffers.start + 16 * k + 8, true)),
  });
  const first = rows.length;
  for (let r = 0; r < length; r++) rows.push({});
  let b = 0;
  for (const field of fields) {
    const validity = buffer(b++);
    const valid = (r: number) =>
      validity.length === 0 || ((view.getUint8(validity.at + (r >> 3)) >> (r & 7)) & 1) === 1;
    const type = field.type;
    const values = buffer(b++);
    const data = type.kind === 'utf8' ? buffer(b++) : undefined;
    for (let r = 0; r < length; r++) {
      const row = rows[first + r] as Record<string, number | string | boolean | null>;
      if (!valid(r)) {
        row[field.name] = null;
        continue;
      }
      if (type.kind === 'int' && type.bitWidth === 32)
        row[field.name] = view.getInt32(values.at + 4 * r, true);
      else if (type.kind === 'float' && type.precision === 2)
        row[field.name] = view.getFloat64(values.at + 8 * r, true);
      else if (type.kind === 'timestamp') row[field.name] = Number(view.getBigInt64(values.at + 8 * r, true));
      // Bit-packed, least significant bit first (as validity is).
      else if (type.kind === 'bool')
        row[field.name] = ((view.getUint8(values.at + (r >> 3)) >> (r & 7)) & 1) === 1;
      else if (type.kind === 'utf8' && data !== undefined) {
        const width = type.large ? 8 : 4;
        const offset = (k: number) =>
          width === 4
            ? view.getInt32(values.at + 4 * k, true)
            : Number(view.getBigInt64(values.at + 8 * k, true));
        const s = offset(r);
        row[field.name] = Buffer.from(view.buffer, view.byteOffset + data.at + s, offset(r + 1) - s).toString(
          'utf8',
        );
      } else throw new Error(`${field.name}: ${JSON.stringify(type)} is not read here`);
    }
  }
}
