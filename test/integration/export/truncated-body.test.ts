import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseReportResultStream } from '../../../lib/api';
import { EXPORT_ERROR_CODES, exportReportResult } from '../../../lib/export';
import type { ResultRow } from '../../../lib/spec/types';
import { LocalDirectoryStore } from '../../../lib/stores';
import { resultStreamOf, sampleRow } from '../../support/result-stream';
import { snapshot } from './failing-store';

/** A result document as the service sends it, with the rows given. */
function documentOf(rows: ResultRow[], requestId: string): string {
  const head = resultStreamOf(rows, { requestId }).head;
  return JSON.stringify({
    requestId,
    tenantId: head.tenantId,
    request: head.request,
    effort: 1,
    queryDuration: 1,
    totalDuration: 1,
    queryCount: 1,
    rowLimitExceeded: false,
    totalCount: rows.length,
    data: rows,
    summary: [],
    status: 1,
    statusMessage: 'Report processing is complete.',
    rowLimit: 1_000_000,
  });
}

async function* chunks(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const rows = (tag: string) =>
  Array.from({ length: 300 }, (_, i) =>
    sampleRow({
      connId: `${tag}-${i}`,
      start: `2026-06-0${1 + (i % 3)}T10:00:${String(i % 60).padStart(2, '0')}`,
    }),
  );

describe('exportReportResult with the client parser', () => {
  let root: string;
  let store: LocalDirectoryStore;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'trunc-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('publishes the whole document when the body is complete', async () => {
    // Prepare
    const body = Buffer.from(documentOf(rows('a'), 'req-a'));

    // Act
    const source = await parseReportResultStream(chunks(body, 4_096));
    const summary = await exportReportResult({ source, store, reportId: 'r' });

    // Assess
    expect(summary.rows).toBe(300);
    expect(summary.partitions.map((p) => p.rows)).toEqual([100, 100, 100]);
  });

  // Fixed cut points (a test must be repeatable): early rows, the middle, late rows, and
  // inside the tail after the last row.
  const cuts = [0.37, 0.52, 0.81, 0.9993].map((f) => ({ f }));
  it.each(cuts)(
    'publishes nothing and keeps earlier partitions when the body is cut at $f of its length',
    async ({ f }) => {
      // Prepare
      await exportReportResult({
        source: await parseReportResultStream(chunks(Buffer.from(documentOf(rows('old'), 'req-old')), 4_096)),
        store,
        reportId: 'r',
      });
      const earlier = await snapshot(store);
      const body = Buffer.from(documentOf(rows('new'), 'req-new'));
      const cut = body.subarray(0, Math.floor(body.length * f));

      // Act
      const run = parseReportResultStream(chunks(cut, 1_000)).then((source) =>
        exportReportResult({ source, store, reportId: 'r' }),
      );

      // Assess
      await expect(run).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.sourceFailed });
      expect(await snapshot(store)).toEqual(earlier);
    },
  );
});
