import { describe, expect, it } from 'vitest';
import { ZoneConverter } from '../../../../lib/calendar';
import { ArrayCollector, ArrayPool } from '../../../../lib/export/rows/array-pool';
import {
  type BufferedColumn,
  ColumnBuffer,
  MAX_DICTIONARY_CHARS,
  RunDictionaries,
} from '../../../../lib/export/rows/column-buffer';
import { RowMapper } from '../../../../lib/export/rows/row-mapper';
import { COLUMNS } from '../../../../lib/export/schema';
import type { ResultRow } from '../../../../lib/spec/types';

const USER_NAME = COLUMNS.findIndex((c) => c.name === 'user_name');
const CONN_ID = COLUMNS.findIndex((c) => c.name === 'conn_id');
const RING = COLUMNS.findIndex((c) => c.name === 'ring');

function mapper(): RowMapper {
  return new RowMapper({ reportId: 'r', requestId: 'q', zone: new ZoneConverter('UTC') });
}

/** A user name per row: unique, with text that needs quoting, non-ASCII, empty and absent values. */
function userName(i: number): string | null {
  if (i % 97 === 0) return null;
  if (i % 89 === 0) return '';
  return `Zoë "${i}", 日本\r\n🚀`;
}

/** A row; `name` null leaves userName out. */
function row(i: number, name: string | null = userName(i)): ResultRow {
  const r: ResultRow = { connId: `c-${i}`, start: '2026-03-10T10:00:00', ring: i / 8 };
  if (name !== null) r.userName = name;
  if (i % 5 === 0) delete r.ring;
  return r;
}

describe('ColumnBuffer', () => {
  it('indexes a column of few distinct values in the run dictionary and returns the values appended', () => {
    // Prepare
    const m = mapper();
    const buffer = m.newBuffer();
    const names = Array.from({ length: 500 }, (_, i) => (i % 7 === 0 ? null : `user ${i % 3}`));

    // Act
    names.forEach((name, i) => {
      m.append(row(i, name), buffer);
    });

    // Assess
    expect(buffer.columns[USER_NAME]?.type).toBe('indexed');
    expect(m.dictionaries.entries(USER_NAME)).toEqual(['user 1', 'user 2', 'user 0']);
    expect(buffer.values(USER_NAME)).toEqual(names);
    expect(buffer.values(RING)).toEqual(names.map((_, i) => (i % 5 === 0 ? null : i / 8)));
  });

  it('switches a column to UTF-8 text and keeps every earlier row when its values stop repeating', () => {
    // Prepare
    const m = mapper();
    const early = m.newBuffer();
    const late = m.newBuffer();
    m.append(row(1), early); // early holds an indexed value before the switch

    // Act
    for (let i = 2; i < 3_000; i++) m.append(row(i), late);
    m.append(row(3_000), early);

    // Assess
    expect(m.dictionaries.columns[USER_NAME]?.open).toBe(false);
    expect(late.columns[USER_NAME]?.type).toBe('text');
    expect(early.columns[USER_NAME]?.type).toBe('text');
    expect(late.values(USER_NAME)).toEqual(Array.from({ length: 2_998 }, (_, k) => userName(k + 2)));
    expect(early.values(USER_NAME)).toEqual([userName(1), userName(3_000)]);
    expect(m.newBuffer().columns[USER_NAME]?.type).toBe('text');
  });

  it('rebuilds the same values on the other side when a buffer is transferred with its new dictionary entries', () => {
    // Prepare
    const m = mapper();
    const buffer = m.newBuffer();
    for (let i = 0; i < 1_500; i++) m.append(row(i, i % 4 === 0 ? `name ${i % 9}` : userName(i)), buffer);
    const expected = COLUMNS.map((_, c) => buffer.values(c));
    const sent: number[] = [];

    // Act
    const { columns, transfer } = buffer.trimmed();
    const message = structuredClone(
      { columns, rows: buffer.rows, added: m.dictionaries.additions(sent) },
      { transfer },
    );
    const mirror = new RunDictionaries();
    for (const a of message.added) mirror.columns[a.column]?.extend(a.values);
    const collector = new ArrayCollector();
    const received = ColumnBuffer.received(mirror, message.columns, message.rows, collector);

    // Assess
    expect(COLUMNS.map((_, c) => received.values(c))).toEqual(expected);
    expect(transfer.every((b) => b.byteLength === 0)).toBe(true); // moved, not copied
    expect(m.dictionaries.additions(sent)).toEqual([]); // each entry is sent once
    received.release();
    expect(collector.take().length).toBe(transfer.length);
  });

  it('reuses released arrays for the next buffers instead of allocating new ones', () => {
    // Prepare
    const m = mapper();
    const first = m.newBuffer();
    for (let i = 0; i < 300; i++) m.append(row(i), first);
    const firstConnIds = first.columns[CONN_ID];

    // Act
    first.release();
    const pooled = m.pool.bytes;
    const second = m.newBuffer();
    for (let i = 0; i < 300; i++) m.append(row(i + 1_000), second);

    // Assess
    expect(pooled).toBeGreaterThan(0);
    expect(m.pool.bytes).toBeLessThan(pooled);
    expect(second.columns[CONN_ID]).not.toBe(firstConnIds);
    expect(second.values(CONN_ID)).toEqual(Array.from({ length: 300 }, (_, i) => `c-${i + 1_000}`));
  });
});

describe('ColumnBuffer with long values', () => {
  it('keeps a long value out of the run dictionary and buffers its column as text when it would pass MAX_DICTIONARY_CHARS', () => {
    // Prepare
    const m = mapper();
    const buffer = m.newBuffer();
    const long = `Zoë ${'x'.repeat(MAX_DICTIONARY_CHARS)}`;

    // Act
    m.append(row(1, 'short'), buffer);
    m.append(row(2, long), buffer);
    m.append(row(3, 'short'), buffer);

    // Assess
    const dictionary = m.dictionaries.columns[USER_NAME];
    expect(dictionary?.open).toBe(false);
    expect(dictionary?.entries).toEqual(['short']);
    expect(buffer.columns[USER_NAME]?.type).toBe('text');
    expect(buffer.values(USER_NAME)).toEqual(['short', long, 'short']);
    expect(buffer.textBytes).toBe(Buffer.byteLength(long) + 10); // + 'short' twice (conn_id is still indexed)
  });

  it('counts text bytes and sizes the text array to them when values are megabytes', () => {
    // Prepare
    const m = mapper();
    const buffer = m.newBuffer();
    const mb = 'y'.repeat(5 * 1024 * 1024);

    // Act
    m.append(row(1, mb), buffer);

    // Assess: measured, not 3 bytes per character reserved (a 16 MiB array before).
    const text = buffer.columns[USER_NAME] as Extract<BufferedColumn, { type: 'text' }>;
    expect(buffer.textBytes).toBe(mb.length);
    expect(text.bytes.length).toBeLessThanOrEqual(6 * 1024 * 1024);
  });
});

describe('ArrayPool', () => {
  it('hands back a released buffer of the size asked for and ignores detached or surplus buffers', () => {
    // Prepare
    const pool = new ArrayPool(1_024);
    const a = pool.take(512);
    const moved = new ArrayBuffer(64);
    structuredClone(moved, { transfer: [moved] });

    // Act
    pool.give(a);
    pool.give(moved);
    pool.give(new ArrayBuffer(768)); // would exceed the 1,024-byte cap

    // Assess
    expect(pool.bytes).toBe(512);
    expect(pool.take(512)).toBe(a);
    expect(pool.take(512)).not.toBe(a);
    expect(pool.take(64).byteLength).toBe(64);
    expect(pool.bytes).toBe(0);
  });
});
