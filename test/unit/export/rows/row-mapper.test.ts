import { describe, expect, it } from 'vitest';
import type { ColumnBuffer } from '../../../../lib/export/rows/column-buffer';
import { RowMapper } from '../../../../lib/export/rows/row-mapper';
import { COLUMNS } from '../../../../lib/export/schema';
import { ZoneConverter } from '../../../../lib/export/time-zone';
import type { ResultRow } from '../../../../lib/spec/types';

const zone = new ZoneConverter('Europe/London');

function column(buffer: ColumnBuffer, name: string): unknown[] {
  return buffer.values(COLUMNS.findIndex((c) => c.name === name));
}

describe('RowMapper', () => {
  it('warns once per unknown member and keeps the row when the policy is warn', () => {
    // Prepare
    const warnings: unknown[] = [];
    const mapper = new RowMapper({
      reportId: 'r',
      requestId: 'q',
      zone,
      logger: { warn: (message, data) => warnings.push({ message, data }) },
    });
    const buffer = mapper.newBuffer();

    // Act
    mapper.append({ start: '2026-01-01T00:00:00', extra: 'x' } as ResultRow, buffer);
    mapper.append({ start: '2026-01-01T00:00:01', extra: 'y' } as ResultRow, buffer);

    // Assess
    expect(buffer.rows).toBe(2);
    expect(warnings).toEqual([{ message: expect.any(String), data: { member: 'extra', firstRow: 0 } }]);
    expect(mapper.unknownMembers).toEqual(['extra']);
  });

  it('throws EXPORT_UNKNOWN_MEMBER when the policy is fail', () => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone, unknownMembers: 'fail' });

    // Act
    const append = () =>
      mapper.append({ start: '2026-01-01T00:00:00', extra: 1 } as ResultRow, mapper.newBuffer());

    // Assess
    expect(append).toThrow(expect.objectContaining({ code: 'EXPORT_UNKNOWN_MEMBER' }));
  });

  it.each([
    { name: 'start is missing', row: { connId: 'x' } },
    { name: 'start has an offset', row: { start: '2026-01-01T00:00:00+01:00' } },
    { name: 'callType is a fraction', row: { start: '2026-01-01T00:00:00', callType: 1.5 } },
    { name: 'ans is too big', row: { start: '2026-01-01T00:00:00', ans: 2 ** 31 } },
    { name: 'ring is text', row: { start: '2026-01-01T00:00:00', ring: 'slow' } },
    { name: 'userName is an object', row: { start: '2026-01-01T00:00:00', userName: {} } },
  ])('throws EXPORT_ROW_INVALID when $name', ({ row }) => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });

    // Act
    const append = () => mapper.append(row as unknown as ResultRow, mapper.newBuffer());

    // Assess
    expect(append).toThrow(expect.objectContaining({ code: 'EXPORT_ROW_INVALID' }));
  });

  it('maps numeric strings to numbers and omitted members to null when rows vary', () => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });
    const buffer = mapper.newBuffer();

    // Act
    const dt = mapper.append(
      { start: '2026-07-01T00:30:00', ans: '3', ring: '2.5' } as unknown as ResultRow,
      buffer,
    );

    // Assess
    expect(dt).toBe('2026-07-01');
    expect(column(buffer, 'ans')).toEqual([3]);
    expect(column(buffer, 'ring')).toEqual([2.5]);
    expect(column(buffer, 'userName')).toEqual([null]);
    expect(column(buffer, 'start_utc')).toEqual([Date.UTC(2026, 5, 30, 23, 30)]);
    expect(column(buffer, 'report_id')).toEqual(['r']);
  });
});
