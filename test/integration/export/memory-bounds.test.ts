import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The memory budget of the export (a 256 MB Lambda): peak RSS of the whole process. */
const BUDGET_MB = 256;
const CHILD_TIMEOUT_MS = 150_000;

interface ChildResult {
  rows: number;
  partitions: number;
  files: number;
  peak_rss_mb: number;
}

/**
 * Bundles an entry point as the Lambda is bundled (esbuild, ESM, no tsx in the measured
 * process: its loader alone is about 30 MB of RSS).
 */
async function bundle(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [new URL(entry, import.meta.url).pathname],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

/** Runs the export in its own process (killed if it outlives CHILD_TIMEOUT_MS); its last stdout line. */
function runChild(args: string[]): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`export child exited with ${code}: ${err.slice(-2_000)}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as ChildResult);
    });
  });
}

describe('exportReportResult memory', () => {
  let dir: string;
  let child: string;
  let worker: URL;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'export-memory-'));
    child = await bundle('../../../bench/export-memory.ts', join(dir, 'export-memory.mjs'));
    // As deployed: the encode worker bundled next to the handler, encoding on its own thread.
    worker = pathToFileURL(
      await bundle('../../../lib/export/spill/encode-worker.ts', join(dir, 'encode-worker.mjs')),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    // Rows whose size alone used to break the budget (about 950 MB before the byte budget).
    { memoryCase: 'large-rows', count: 200, partitions: 1 },
    // Open partitions whose count alone used to break it (about 320-380 MB before).
    { memoryCase: 'many-days', count: 3_000, partitions: 3_000 },
  ])(
    'stays within 256 MB of RSS when exporting $memoryCase ($count rows)',
    async ({ memoryCase, count, partitions }) => {
      // Prepare
      const out = join(dir, `out-${memoryCase}`);

      // Act
      const result = await runChild([
        child,
        '--case',
        memoryCase,
        '--count',
        String(count),
        '--out',
        out,
        '--worker',
        worker.href,
      ]);

      // Assess
      expect(result).toMatchObject({ rows: count, partitions, files: partitions * 2 });
      expect(result.peak_rss_mb).toBeLessThan(BUDGET_MB);
    },
    CHILD_TIMEOUT_MS + 10_000,
  );
});
