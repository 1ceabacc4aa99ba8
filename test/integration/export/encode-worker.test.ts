import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_ERROR_CODES, exportReportResult } from '../../../lib/export';
import type { ResultRow } from '../../../lib/spec/types';
import { LocalDirectoryStore } from '../../../lib/stores';
import { bundleEncodeWorker } from '../../support/encode-worker-bundle';
import { resultStreamOf, sampleRow } from '../../support/result-stream';
import { snapshot } from './failing-store';

/** Rows over 5 days, unsorted, with text that needs quoting. */
function rows(): ResultRow[] {
  const out: ResultRow[] = [];
  for (let i = 0; i < 2_000; i++) {
    const day = 1 + ((i * 7) % 5);
    const row = sampleRow({
      connId: `c-${i}`,
      start: `2026-06-0${day}T${String(i % 24).padStart(2, '0')}:00:00`,
      userName: i % 3 === 0 ? `Smith, "J" ${i}\nZoë` : `user ${i % 17}`,
      ring: i / 4,
    });
    if (i % 5 === 0) delete row.ring;
    out.push(row);
  }
  return out;
}

describe('exportReportResult with the encode worker', () => {
  let dir: string;
  let bundle: Awaited<ReturnType<typeof bundleEncodeWorker>>;
  let worker: URL;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'worker-'));
    // The worker runs as plain JavaScript, as deployments bundle it.
    bundle = await bundleEncodeWorker();
    worker = bundle.url;
  });
  afterAll(async () => {
    await bundle.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the same objects as encoding inline when the worker encodes both formats', async () => {
    // Prepare
    const inline = new LocalDirectoryStore(join(dir, 'inline'));
    const threaded = new LocalDirectoryStore(join(dir, 'worker'));
    const options = {
      reportId: 'r',
      maxBufferedRows: 300,
      rowGroupRows: 200,
      maxRowsPerFile: 250,
      csvGzip: true,
    };

    // Act
    await exportReportResult({
      ...options,
      source: resultStreamOf(rows()),
      store: inline,
      encodeWorker: false,
    });
    const summary = await exportReportResult({
      ...options,
      source: resultStreamOf(rows()),
      store: threaded,
      encodeWorker: worker,
    });

    // Assess
    expect(summary.partitions.map((p) => p.rows)).toEqual([400, 400, 400, 400, 400]);
    const a = await snapshot(inline);
    const b = await snapshot(threaded);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [key, bytes] of b)
      if (!key.endsWith('_manifest.json')) expect([key, bytes]).toEqual([key, a.get(key)]);
  });

  it('publishes nothing when the source fails while the worker encodes', async () => {
    // Prepare
    const store = new LocalDirectoryStore(join(dir, 'failing'));
    const source = resultStreamOf(rows(), { failAfter: { rows: 1_500, error: new Error('reset') } });

    // Act
    const run = exportReportResult({
      source,
      store,
      reportId: 'r',
      maxBufferedRows: 300,
      encodeWorker: worker,
    });

    // Assess
    await expect(run).rejects.toMatchObject({ code: EXPORT_ERROR_CODES.sourceFailed });
    expect(await snapshot(store)).toEqual(new Map());
  });

  it('encodes inline and warns when the worker file does not exist', async () => {
    // Prepare
    const store = new LocalDirectoryStore(join(dir, 'fallback'));
    const warnings: string[] = [];

    // Act
    const summary = await exportReportResult({
      source: resultStreamOf(rows()),
      store,
      reportId: 'r',
      encodeWorker: pathToFileURL(join(dir, 'missing.mjs')),
      logger: { warn: (message) => warnings.push(message) },
    });

    // Assess
    expect(summary.rows).toBe(2_000);
    expect(warnings).toEqual([expect.stringContaining('Encode worker not found')]);
  });
});
