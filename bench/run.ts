/**
 * `npm run bench -- --rows N` (default 1,000,000).
 *
 * 1. Produces a report result document of about N rows with the local service
 *    (bench/export-document.ts), and one of 100,000 rows.
 * 2. Bundles each contestant with esbuild (as the Lambda is bundled: no tsx in the
 *    measured process; ours with lib/export/spill/encode-worker.ts as encode-worker.mjs next to
 *    it) and runs each in its own process on the same document:
 *    ours (parse -> export to a local directory), DuckDB (read_json + COPY, 2 threads),
 *    parquetjs-lite (JSON.parse + appendRow). Each measures its own rows/s and peak RSS.
 *    Then bench/export-parquet-libs.ts: the Parquet library comparison on the same rows.
 * 3. Peak RSS of ours (bundled, with the worker) on two shapes that once broke the memory
 *    budget (bench/export-memory.ts): 200 rows of 4 MB each, and 3,000 days of one row.
 * 4. Runs bench/client-parse.ts and bench/sim-memory.ts when present and prints their lines.
 * 5. Prints a table, then ends with one JSON line: rows, ours_rows_per_s,
 *    duckdb_rows_per_s, ratio_vs_duckdb, parquetjs_lite_rows_per_s, peak_rss_mb,
 *    peak_rss_mb_100k, peak_rss_mb_large_rows, peak_rss_mb_3000_days.
 * Progress goes to stderr; only result lines go to stdout.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const CHILD_TIMEOUT_MS = 20 * 60_000;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** Runs a child, passes its stderr through, returns its last stdout line parsed as JSON. */
function runChild(command: string, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) {
        reject(new Error(`${args.join(' ')} exited with ${code}`));
        return;
      }
      try {
        resolvePromise(JSON.parse(last) as Record<string, unknown>);
      } catch {
        reject(new Error(`${args.join(' ')} printed no JSON line`));
      }
    });
  });
}

async function bundle(entry: string, outDir: string): Promise<string> {
  const outfile = join(outDir, `${basename(entry).replace(/\.ts$/, '')}.mjs`);
  await build({
    entryPoints: [join(here, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    // Native and CommonJS-only packages are loaded from node_modules as they are.
    external: ['@duckdb/node-api', 'parquetjs-lite'],
    banner: {
      js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}

/** A plain-text table, columns padded to their widest cell. */
function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return `${rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  ')).join('\n')}\n`;
}

async function main(): Promise<void> {
  const rows = Number(arg('rows', '1000000'));
  if (!Number.isInteger(rows) || rows < 1) throw new Error('--rows must be a positive integer');
  // Bundles go inside the repository so bare imports of external packages resolve.
  const work = await mkdtemp(join(here, '.bench-'));
  const data = await mkdtemp(join(tmpdir(), 'report-export-bench-'));
  const tsx = ['--import', 'tsx'];
  try {
    log('bundling contestants');
    const ours = await bundle('export-ours.ts', work);
    // As in the Lambda: the encode worker ships next to the bundle that runs the export.
    const worker = pathToFileURL(await bundle('../lib/export/spill/encode-worker.ts', work)).href;
    const memory = await bundle('export-memory.ts', work);
    const duckdb = await bundle('export-duckdb.ts', work);
    const parquetjs = await bundle('export-parquetjs-lite.ts', work);
    const parquetLibs = await bundle('export-parquet-libs.ts', work);

    log(`generating a document of about ${rows} rows with the local service`);
    const doc = join(data, 'doc.json');
    const made = await runChild(process.execPath, [
      ...tsx,
      join(here, 'export-document.ts'),
      '--rows',
      String(rows),
      '--out',
      doc,
    ]);
    log(`document: ${JSON.stringify(made)}`);
    let doc100k = doc;
    if (rows !== 100_000) {
      doc100k = join(data, 'doc-100k.json');
      const small = await runChild(process.execPath, [
        ...tsx,
        join(here, 'export-document.ts'),
        '--rows',
        '100000',
        '--out',
        doc100k,
      ]);
      log(`document 100k: ${JSON.stringify(small)}`);
    }

    const run = async (name: string, script: string, file: string) => {
      log(`running ${name}`);
      const out = join(data, `out-${name}`);
      const result = await runChild(process.execPath, [script, '--file', file, '--out', out]);
      await rm(out, { recursive: true, force: true });
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return result;
    };
    const oursResult = await run('ours', ours, doc);
    const ours100k = await run('ours-100k', ours, doc100k);
    const duckdbResult = await run('duckdb', duckdb, doc);
    const parquetjsResult = await run('parquetjs-lite', parquetjs, doc);
    // The Parquet library choice: the same parsed rows, encoding only.
    await run('parquet-libs', parquetLibs, doc);

    // The shapes that broke the 256 MB budget before the byte budget and the open-buffer cap.
    const memoryRuns: Record<string, Record<string, unknown>> = {};
    for (const [name, memoryCase, count] of [
      ['large-rows', 'large-rows', 200],
      ['3000-days', 'many-days', 3_000],
    ] as const) {
      log(`running ours on ${name}`);
      const out = join(data, `out-memory-${name}`);
      const result = await runChild(process.execPath, [
        memory,
        '--case',
        memoryCase,
        '--count',
        String(count),
        '--out',
        out,
        '--worker',
        worker,
      ]);
      await rm(out, { recursive: true, force: true });
      process.stdout.write(`${JSON.stringify({ bench: 'export-memory', ...result })}\n`);
      memoryRuns[name] = result;
    }

    for (const [script, args] of [
      ['client-parse.ts', ['--rows', String(rows), '--file', doc]],
      ['sim-memory.ts', ['--rows', String(rows)]],
    ] as const) {
      const path = join(here, script);
      if (!existsSync(path)) continue;
      log(`running ${script}`);
      try {
        const line = await runChild(process.execPath, [...tsx, path, ...args]);
        process.stdout.write(`${JSON.stringify({ bench: script, ...line })}\n`);
      } catch (error) {
        log(`${script} failed: ${(error as Error).message}`);
      }
    }

    const oursRate = Number(oursResult.rows_per_s);
    const duckdbRate = Number(duckdbResult.rows_per_s);
    const summary = {
      rows: oursResult.rows,
      ours_rows_per_s: oursRate,
      duckdb_rows_per_s: duckdbRate,
      ratio_vs_duckdb: Number((oursRate / duckdbRate).toFixed(2)),
      parquetjs_lite_rows_per_s: parquetjsResult.rows_per_s,
      peak_rss_mb: oursResult.peak_rss_mb,
      peak_rss_mb_100k: ours100k.peak_rss_mb,
      peak_rss_mb_large_rows: memoryRuns['large-rows']?.peak_rss_mb,
      peak_rss_mb_3000_days: memoryRuns['3000-days']?.peak_rss_mb,
    };
    process.stdout.write(
      table([
        ['contestant', 'rows', 'rows/s', 'peak RSS MB'],
        ['ours', String(oursResult.rows), String(oursRate), String(oursResult.peak_rss_mb)],
        ['ours (100k)', String(ours100k.rows), String(ours100k.rows_per_s), String(ours100k.peak_rss_mb)],
        ['duckdb', String(duckdbResult.rows), String(duckdbRate), String(duckdbResult.peak_rss_mb)],
        [
          'parquetjs-lite',
          String(parquetjsResult.rows),
          String(parquetjsResult.rows_per_s),
          String(parquetjsResult.peak_rss_mb),
        ],
        [
          'ours, 200 rows of 4 MB',
          String(memoryRuns['large-rows']?.rows),
          '-',
          String(summary.peak_rss_mb_large_rows),
        ],
        [
          'ours, 3,000 days x 1 row',
          String(memoryRuns['3000-days']?.rows),
          '-',
          String(summary.peak_rss_mb_3000_days),
        ],
      ]),
    );
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(data, { recursive: true, force: true });
  }
}

await main();
