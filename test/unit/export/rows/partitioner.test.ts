import { describe, expect, it } from 'vitest';
import { ZoneConverter } from '../../../../lib/calendar';
import type { ColumnBuffer } from '../../../../lib/export/rows/column-buffer';
import { Partitioner, type PartitionSink } from '../../../../lib/export/rows/partitioner';
import { RowMapper } from '../../../../lib/export/rows/row-mapper';
import type { PartitionOutput } from '../../../../lib/export/types';
import type { ResultRow } from '../../../../lib/spec/types';

/** A sink that records what it is handed and gives the arrays back. */
class RecordingSink implements PartitionSink {
  readonly writes: { dt: string; rows: number; textBytes: number }[] = [];

  async write(dt: string, buffer: ColumnBuffer): Promise<void> {
    this.writes.push({ dt, rows: buffer.rows, textBytes: buffer.textBytes });
    buffer.release();
  }

  async finish(): Promise<PartitionOutput[]> {
    return [];
  }

  async close(): Promise<void> {}
}

const OPTIONS = { maxRowsPerFile: 1_000_000, rowGroupRows: 10_000, maxBufferedRows: 10_000 };

function partitioner(
  sink: PartitionSink,
  options: Partial<ConstructorParameters<typeof Partitioner>[2]> = {},
) {
  const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone: new ZoneConverter('UTC') });
  return new Partitioner(mapper, sink, { ...OPTIONS, ...options });
}

function day(i: number): string {
  return new Date(Date.UTC(2020, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
}

describe('Partitioner', () => {
  it('flushes buffered text when it passes maxBufferedBytes whatever the row count', async () => {
    // Prepare: rows of 1 MiB of text each, a budget of 3 MiB, row limits far away.
    const sink = new RecordingSink();
    const p = partitioner(sink, { maxBufferedBytes: 3 * 1024 * 1024 });
    const seen: number[] = [];

    // Act
    for (let i = 0; i < 10; i++) {
      const row: ResultRow = {
        connId: `c${i}`,
        start: '2026-03-10T10:00:00',
        docId: 'd'.repeat(1024 * 1024),
      };
      await p.add(row);
      seen.push(p.bufferedBytes);
    }
    await p.finish();

    // Assess
    expect(sink.writes.map((w) => w.rows)).toEqual([3, 3, 3, 1]);
    expect(Math.max(...seen)).toBeLessThan(3 * 1024 * 1024);
    expect(sink.writes.every((w) => w.textBytes < 4 * 1024 * 1024)).toBe(true);
  });

  it('keeps at most maxOpenBuffers partitions buffered when rows go to many days', async () => {
    // Prepare
    const sink = new RecordingSink();
    const p = partitioner(sink, { maxOpenBuffers: 3 });
    const open: number[] = [];

    // Act: 10 days of one row each, in time order.
    for (let i = 0; i < 10; i++) {
      await p.add({ connId: `c${i}`, start: `${day(i)}T10:00:00` });
      open.push(p.openBuffers);
    }
    const beforeFinish = sink.writes.length;
    const partitions = await p.finish();

    // Assess: the day written to longest ago goes first; one row group per day.
    expect(Math.max(...open)).toBe(3);
    expect(beforeFinish).toBe(7);
    expect(sink.writes.map((w) => w.dt)).toEqual(Array.from({ length: 10 }, (_, i) => day(i)));
    expect(partitions.map((x) => x.rows)).toEqual(Array(10).fill(1));
  });

  it('flushes the partition written to longest ago, not the first opened, when rows alternate', async () => {
    // Prepare
    const sink = new RecordingSink();
    const p = partitioner(sink, { maxOpenBuffers: 2 });

    // Act: day 0, day 1, day 0 again, then day 2 needs room.
    for (const i of [0, 1, 0, 2]) await p.add({ connId: `c${i}`, start: `${day(i)}T10:00:00` });

    // Assess
    expect(sink.writes.map((w) => [w.dt, w.rows])).toEqual([[day(1), 1]]);
  });

  it('writes one row group per day and holds few buffers when 3,000 days arrive in time order', async () => {
    // Prepare
    const sink = new RecordingSink();
    const p = partitioner(sink);
    let mostOpen = 0;

    // Act
    for (let i = 0; i < 3_000; i++) {
      await p.add({ connId: `c${i}`, start: `${day(i)}T10:00:00` });
      mostOpen = Math.max(mostOpen, p.openBuffers);
    }
    await p.finish();

    // Assess
    expect(sink.writes).toHaveLength(3_000);
    expect(new Set(sink.writes.map((w) => w.dt)).size).toBe(3_000);
    expect(mostOpen).toBeLessThanOrEqual(64);
  });
});
