import { describe, expect, it } from 'vitest';
import {
  COLUMNS,
  columnName,
  csvHeader,
  glueColumns,
  gluePartitionKeys,
  KNOWN_MEMBERS,
  parquetSchema,
  SCHEMA_VERSION,
  tableSchema,
} from '../../../lib/export/schema';
import { RESULT_ROW_FIELDS } from '../../../lib/spec/types';

describe('schema', () => {
  it('declares no partition key as a Glue data column when the table is partitioned by report_id and dt', () => {
    // Act
    const data = glueColumns().map((c) => c.Name);
    const keys = gluePartitionKeys().map((c) => c.Name);

    // Assess
    expect(keys).toEqual(['report_id', 'dt']);
    expect(data.filter((name) => keys.includes(name))).toEqual([]);
    // Every other column of the files is declared, in file order.
    expect(data).toEqual(csvHeader().filter((name) => name !== 'report_id'));
  });

  it('maps each column kind to its Hive type when the table reads Parquet', () => {
    // Act
    const types = Object.fromEntries(glueColumns('parquet').map((c) => [c.Name, c.Type]));

    // Assess
    expect(types).toMatchObject({
      conn_id: 'string',
      start: 'timestamp',
      start_utc: 'timestamp',
      call_type: 'int',
      ans: 'int',
      ring: 'double',
      duration: 'double',
      request_id: 'string',
    });
  });

  it('declares every column as string when the table reads CSV through OpenCSVSerDe', () => {
    // Act
    const types = new Set(glueColumns('csv').map((c) => c.Type));

    // Assess
    expect(types).toEqual(new Set(['string']));
  });

  it('declares extra before provisional, as JSON in Parquet and as a string in Glue, when members have no column', () => {
    // Act
    const element = parquetSchema().at(-2);
    const glue = glueColumns('parquet').at(-2);

    // Assess
    expect(csvHeader().at(-2)).toBe('extra');
    expect(element).toEqual({
      name: 'extra',
      type: 'BYTE_ARRAY',
      converted_type: 'JSON',
      logical_type: { type: 'JSON' },
      repetition_type: 'OPTIONAL',
    });
    expect(glue).toMatchObject({ Name: 'extra', Type: 'string' });
    expect(SCHEMA_VERSION).toBe(4);
  });

  it('declares provisional last of every report dataset, after the promoted columns, as a required boolean', () => {
    // Act
    const calls = tableSchema({ promoted: [{ name: 'queueName', type: 'string' }] });
    const summaries = tableSchema({ dataset: 'summaries' });

    // Assess: files written before it (schema version 3) keep every other column's position.
    for (const schema of [calls, summaries]) {
      expect(csvHeader(schema).at(-1)).toBe('provisional');
      expect(parquetSchema(schema).at(-1)).toEqual({
        name: 'provisional',
        type: 'BOOLEAN',
        repetition_type: 'REQUIRED',
      });
      expect(glueColumns('parquet', schema).at(-1)).toMatchObject({ Name: 'provisional', Type: 'boolean' });
    }
    expect(csvHeader(calls).slice(-3)).toEqual(['extra', 'queue_name', 'provisional']);
    expect(() => tableSchema({ promoted: [{ name: 'provisional', type: 'boolean' }] })).toThrow(
      /column name is provisional, which the calls dataset already has/,
    );
  });

  it('knows exactly the spec row members when the client keeps the source text of the others', () => {
    // Assess: the client gives source text for members outside RESULT_ROW_FIELDS; the
    // mapper puts members outside KNOWN_MEMBERS in extra. They must be the same set.
    expect([...KNOWN_MEMBERS].sort()).toEqual([...RESULT_ROW_FIELDS].sort());
  });

  it('names every column in lower snake_case and keeps the member name in its description', () => {
    // Assess: Athena lowers every name it reads; the service's name is in the doc (Glue Comment).
    for (const c of COLUMNS) expect(c.name).toMatch(/^[a-z][a-z0-9_]*$/);
    const byName = new Map(COLUMNS.map((c) => [c.name, c]));
    expect(byName.get('conn_id')).toMatchObject({ formerName: 'connId', source: { member: 'connId' } });
    expect(byName.get('called_user_num')?.description).toMatch(/The service's member calledUserNum\.$/);
    expect(byName.get('ans')?.formerName).toBeUndefined();
    expect(csvHeader().slice(0, 4)).toEqual(['conn_id', 'start', 'user_name', 'user_num']);
  });

  it.each([
    ['connId', 'conn_id'],
    ['calledUserNum', 'called_user_num'],
    ['HTTPCode', 'http_code'],
    ['queueID', 'queue_id'],
    ['leg2Id', 'leg2_id'],
    ['wait_2', 'wait_2'],
    ['Queue', 'queue'],
  ])('names the column of member %s %s', (member, name) => {
    expect(columnName(member)).toBe(name);
  });

  it('names a promoted column in snake_case and refuses one whose name another column has', () => {
    // Act
    const schema = tableSchema({ promoted: [{ name: 'queueName', type: 'string' }] });

    // Assess
    expect(schema.columns.at(-2)).toMatchObject({
      name: 'queue_name',
      formerName: 'queueName',
      source: { from: 'promoted', member: 'queueName' },
    });
    expect(schema.knownMembers.has('queueName')).toBe(true);
    expect(() => tableSchema({ promoted: [{ name: 'connID', type: 'string' }] })).toThrow(
      /column name is conn_id, which the calls dataset already has/,
    );
    expect(() =>
      tableSchema({
        promoted: [
          { name: 'queueName', type: 'string' },
          { name: 'queue_name', type: 'string' },
        ],
      }),
    ).toThrow(/promoted column 1 \("queue_name"\): its column name is queue_name.*member queueName/);
  });

  it('keeps report_id in the files as a lineage column when it is a partition key', () => {
    // Act
    const parquetNames = parquetSchema().map((e) => e.name);

    // Assess
    expect(csvHeader()).toContain('report_id');
    expect(parquetNames).toContain('report_id');
    expect(parquetNames).toHaveLength(COLUMNS.length + 2); // the root, and provisional
  });
});
