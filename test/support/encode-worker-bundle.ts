import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/**
 * The export's encode worker bundled to plain JavaScript, as deployments ship it
 * (`encode-worker.mjs`): tests that run the export on the worker thread load this file.
 */
export async function bundleEncodeWorker(): Promise<{ url: URL; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'encode-worker-'));
  const outfile = join(dir, 'encode-worker.mjs');
  await build({
    entryPoints: [new URL('../../lib/export/spill/encode-worker.ts', import.meta.url).pathname],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
  });
  return { url: pathToFileURL(outfile), remove: () => rm(dir, { recursive: true, force: true }) };
}
