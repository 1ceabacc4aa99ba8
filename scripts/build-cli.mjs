#!/usr/bin/env node
// Builds the command-line program to JavaScript (no tsx at run time): dist/cli/report-export.mjs,
// the encode worker beside it (the export finds `encode-worker.mjs` next to its bundle) and the
// Lambda host of the local workflow. dist/cli is two folders below the project root, like
// lib/cli, so the code's `import.meta.dirname`-relative paths hold in both. npm packages stay
// imports (node_modules is there: the binary runs from a clone or an installed package).
// Run by `npm ci` (prepare), `npm run build` and the tests' global setup.
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const target = path.join(root, 'dist', 'cli');

/**
 * Builds into a fresh folder and swaps it in, so a program already running from dist/cli
 * (another test run) never sees a half-written build.
 */
export async function buildCli() {
  const out = `${target}.new-${process.pid}`;
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
    absWorkingDir: root,
  };
  await Promise.all([
    build({
      ...common,
      entryPoints: { 'report-export': 'bin/report-export.ts' },
      outdir: out,
      // Chunks for what commands import on use (CDK, the engine): a command starts without them.
      splitting: true,
      // Beside the entry, not below it: import.meta.dirname-relative paths assume lib/<folder> depth.
      chunkNames: '[name]-[hash]',
      outExtension: { '.js': '.mjs' },
    }),
    build({
      ...common,
      entryPoints: { 'encode-worker': 'lib/export/spill/encode-worker.ts' },
      outdir: out,
      outExtension: { '.js': '.mjs' },
    }),
    copyFile(path.join(root, 'lib/local/lambda-host.mjs'), path.join(out, 'lambda-host.mjs')),
  ]);
  const old = `${target}.old-${process.pid}`;
  await rename(target, old).catch(() => undefined);
  await rename(out, target);
  await rm(old, { recursive: true, force: true });
  return path.join(target, 'report-export.mjs');
}

if (process.argv[1] === import.meta.filename) {
  const file = await buildCli();
  const { chmod } = await import('node:fs/promises');
  await chmod(file, 0o755);
  process.stdout.write(`built ${path.relative(root, file)}\n`);
}
