/**
 * `npx tsx bench/e2e.ts` (the last step of `npm run bench`; alone: npm run bench:e2e): end to
 * end against the export core, on one window of ~1,000,000 rows, the same rows for every
 * contestant (issue 17):
 *
 * 1. core      the export core from a file: the service's result body for the window, saved
 *              uncompressed (bench/e2e-document.ts), read in 64 KiB chunks, parsed and exported
 *              to a local directory (bench/export-ours.ts bundled with its encode worker, as
 *              bench/run.ts runs it): the reference.
 * 2. dir       the synthesized state machine run locally, the bundled Lambdas in processes of
 *              their own, from the local service into a local directory (bench/e2e-contestant.ts).
 * 3. s3        the same into S3 on fauxqs (a server in its own process, bench/e2e-s3.ts).
 * 4. upload    the raw upload of contestant 2's data files (the same bytes) to a fresh fauxqs
 *              server with @aws-sdk/lib-storage's Upload (bench/e2e-upload.ts): what the store
 *              cannot beat.
 *
 * Each on one core and on two (util-linux `taskset`): on one core the export's process (the
 * core's, ExportResults', the uploader) is pinned to CPU 0 and everything else (the runner
 * with the local service, the other functions, the S3 server) to CPU 1, as in AWS where only
 * the function runs on its vCPU; on two cores every process may use CPUs 0 and 1. Without
 * `taskset` (or with one CPU) the one-core runs are skipped and the rest runs unpinned.
 *
 * Prints per contestant rows/s, seconds, CPU seconds and peak RSS per process (ExportResults'
 * own, against its memory size), the ratios 2/1 and 3/1, S3's extra time (ExportResults'
 * duration in 3 minus in 2: what S3 adds to what Lambda bills; the whole execution's
 * difference beside it) against the raw upload's time (4), where the time goes by stage
 * (the export core's phase log:
 * read = service body + parse + encode + spill, write = verify, stage = upload, promote,
 * cleanup; and the workflow's states), then one JSON line with every figure.
 *
 * Options: --rows-per-day N (50000) --from D (2026-10-26) --to D (2026-11-22) --seed N
 * --report NAME ('Call list by user') --rounds N (2: each contestant twice per core count, the
 * order of the core counts alternating; each one's fastest run counts).
 * Progress goes to stderr; stdout gets the tables, then the JSON line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { DEFAULT_SEED } from '../lib/simulator/seed';
import { listAll } from '../lib/stores/object-store';
import { createS3Client, S3Store } from '../lib/stores/s3-store';
import { type CommandLine, firstCpus, pinned, tasksetAvailable } from './cpu-affinity';
import { type CoreCount, type E2eFigures, type E2eRun, printE2eReport } from './e2e-report';

const here = import.meta.dirname;
const CHILD_TIMEOUT_MS = 20 * 60_000;
const TSX = ['--import', 'tsx'];

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

function log(message: string): void {
  process.stderr.write(`[bench:e2e] ${message}\n`);
}

/**
 * Runs a child to its end (killed after the timeout): its last stdout line parsed as JSON,
 * and its stderr lines (passed through as well).
 */
async function runChild(line: CommandLine): Promise<{ result: Record<string, unknown>; stderr: string[] }> {
  const child = spawn(line.command, line.args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: CHILD_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  let out = '';
  const stderr: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  createInterface({ input: child.stderr, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (l) => {
    stderr.push(l);
    process.stderr.write(`${l}\n`);
  });
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) throw new Error(`${line.args.join(' ')} ended with ${signal ?? code}`);
  const last = out.trim().split('\n').at(-1) ?? '';
  try {
    return { result: JSON.parse(last) as Record<string, unknown>, stderr };
  } catch {
    throw new Error(`${line.args.join(' ')} printed no JSON line`);
  }
}

/** `cpus` undefined: unpinned. */
function maybePinned(cpus: string | undefined, line: CommandLine): CommandLine {
  return cpus === undefined ? line : pinned(cpus, line);
}

/** fauxqs in a process of its own (bench/e2e-s3.ts): its endpoint, its stats, its end. */
async function startS3(bucket: string, cpus: string | undefined) {
  const { command, args } = maybePinned(cpus, {
    command: process.execPath,
    args: [...TSX, join(here, 'e2e-s3.ts'), '--bucket', bucket],
  });
  const child: ChildProcess = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const replies: ((line: string) => void)[] = [];
  lines.on('line', (l) => replies.shift()?.(l));
  const next = () => new Promise<Record<string, unknown>>((r) => replies.push((l) => r(JSON.parse(l))));
  const started = next();
  const exited = once(child, 'exit');
  const first: Record<string, unknown> = await Promise.race([started, exited.then(() => ({}))]);
  const endpoint = String(first.endpoint ?? '');
  if (endpoint === '') throw new Error('the S3 server did not start');
  const client = createS3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    maxAttempts: 2,
  });
  return {
    endpoint,
    /** CPU seconds since listening and peak RSS of the server. */
    stats: () => {
      const reply = next();
      child.stdin?.write('stats\n');
      return reply;
    },
    /** Data files (Parquet, CSV) under `prefix`. */
    dataFiles: async (prefix: string) => {
      const files = (await listAll(new S3Store({ client, bucket }), prefix)).filter((o) =>
        /\.(parquet|csv|csv\.gz)$/.test(o.key),
      );
      return { files: files.length, bytes: files.reduce((n, o) => n + o.size, 0) };
    },
    close: async () => {
      client.destroy();
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      if (child.exitCode === null && child.signalCode === null) await exited;
      clearTimeout(timer);
    },
  };
}

async function dataFilesIn(dir: string): Promise<{ files: number; bytes: number }> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  let files = 0;
  let bytes = 0;
  for (const e of entries) {
    if (!e.isFile() || !/\.(parquet|csv|csv\.gz)$/.test(e.name)) continue;
    files += 1;
    bytes += (await stat(join(e.parentPath, e.name))).size;
  }
  return { files, bytes };
}

/** As bench/run.ts bundles a contestant (as the Lambda is bundled: no tsx in the measured process). */
async function bundle(entry: string, outDir: string): Promise<string> {
  const outfile = join(outDir, `${basename(entry).replace(/\.ts$/, '')}.mjs`);
  await build({
    entryPoints: [join(here, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    banner: {
      js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}

/** `export phase read done {"rows":..,"ms":..}` lines (bench/export-ours.ts's logger). */
function corePhases(stderr: readonly string[]): Record<string, number> {
  const phases: Record<string, number> = {};
  for (const l of stderr) {
    const m = /^export phase (\S+) done (\{.*\})$/.exec(l);
    if (m === null) continue;
    try {
      const ms = (JSON.parse(m[2] as string) as { ms?: number }).ms;
      if (typeof ms === 'number') phases[m[1] as string] = ms;
    } catch {
      // not a phase line
    }
  }
  return phases;
}

async function main(): Promise<void> {
  const window = { from: arg('from', '2026-10-26'), to: arg('to', '2026-11-22') };
  const rowsPerDay = Number(arg('rows-per-day', '50000'));
  const seed = Number(arg('seed', String(DEFAULT_SEED)));
  const report = arg('report', 'Call list by user');
  const rounds = Number(arg('rounds', '2'));
  if (!Number.isInteger(rowsPerDay) || rowsPerDay < 1)
    throw new Error('--rows-per-day must be a positive integer');
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 5) throw new Error('--rounds must be 1..5');
  const loadBefore = loadavg();
  const benchStarted = performance.now();

  const taskset = tasksetAvailable();
  const one = taskset ? firstCpus(1) : undefined;
  const two = taskset ? firstCpus(2) : undefined;
  // On one core, everything but the export's process takes the other CPU.
  const rest = taskset && two !== undefined ? '1' : undefined;
  const cores: CoreCount[] = two !== undefined && one !== undefined && rest !== undefined ? [2, 1] : [2];
  if (!taskset) log('taskset (util-linux) not found: runs unpinned, the one-core runs are skipped');
  else if (two === undefined) log('fewer than 2 CPUs here: runs unpinned, the one-core runs are skipped');

  // Bundles inside the repository so bare imports of external packages resolve.
  const work = await mkdtemp(join(here, '.bench-e2e-'));
  const data = await mkdtemp(join(tmpdir(), 'report-export-bench-e2e-'));
  try {
    log('bundling the export core contestant (bench/export-ours.ts) and its encode worker');
    const ours = await bundle('export-ours.ts', work);
    await bundle('../lib/export/spill/encode-worker.ts', work);

    const common = [
      ...['--from', window.from, '--to', window.to, '--rows-per-day', String(rowsPerDay)],
      ...['--seed', String(seed), '--report', report],
    ];
    log(
      `the window's result from the local service, uncompressed, to a file (${window.from} .. ${window.to})`,
    );
    const doc = join(data, 'result.json');
    const document = (
      await runChild({
        command: process.execPath,
        args: [...TSX, join(here, 'e2e-document.ts'), ...common, '--out', doc],
      })
    ).result;
    log(`document: ${JSON.stringify(document)}`);

    const runs: E2eRun[] = [];
    const pinning = (c: CoreCount) =>
      c === 1 ? { exportCpus: one as string, restCpus: rest as string } : { exportCpus: two, restCpus: two };
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? cores : [...cores].reverse();
      for (const c of order) {
        const { exportCpus, restCpus } = pinning(c);
        const tag = `${c} core${c === 1 ? '' : 's'}, round ${round}`;

        log(`1. export core from the file (${tag})`);
        const coreOut = join(data, 'out-core');
        const core = await runChild(
          maybePinned(exportCpus, {
            command: process.execPath,
            args: [ours, '--file', doc, '--out', coreOut],
          }),
        );
        await rm(coreOut, { recursive: true, force: true });
        runs.push({
          contestant: 'core',
          cores: c,
          round,
          line: { ...core.result, phases_ms: corePhases(core.stderr) },
        });

        log(`2. workflow into a local directory (${tag})`);
        const lake = join(data, 'lake-dir');
        await rm(lake, { recursive: true, force: true });
        await mkdir(lake, { recursive: true });
        const dir = await runChild(
          maybePinned(restCpus, {
            command: process.execPath,
            args: [
              ...TSX,
              join(here, 'e2e-contestant.ts'),
              ...['--store', 'dir', '--lake', lake, ...common],
              ...['--export-cpus', exportCpus ?? 'all', '--rest-cpus', restCpus ?? 'all'],
            ],
          }),
        );
        const dirFiles = await dataFilesIn(lake);
        runs.push({ contestant: 'dir', cores: c, round, line: { ...dir.result, lake: dirFiles } });

        log(`3. workflow into S3 on fauxqs (${tag})`);
        const s3 = await startS3('bench-e2e', restCpus);
        try {
          const line = (
            await runChild(
              maybePinned(restCpus, {
                command: process.execPath,
                args: [
                  ...TSX,
                  join(here, 'e2e-contestant.ts'),
                  ...['--store', 's3', '--endpoint', s3.endpoint, '--bucket', 'bench-e2e', ...common],
                  ...['--export-cpus', exportCpus ?? 'all', '--rest-cpus', restCpus ?? 'all'],
                ],
              }),
            )
          ).result;
          const server = await s3.stats();
          runs.push({
            contestant: 's3',
            cores: c,
            round,
            line: { ...line, s3_server: server, lake: await s3.dataFiles('lake/') },
          });
        } finally {
          await s3.close();
        }

        log(`4. raw upload of the directory's data files (${dirFiles.files} files, ${dirFiles.bytes} bytes)`);
        const raw = await startS3('bench-raw', restCpus);
        try {
          const line = (
            await runChild(
              maybePinned(exportCpus, {
                command: process.execPath,
                args: [
                  ...TSX,
                  join(here, 'e2e-upload.ts'),
                  ...['--dir', lake, '--endpoint', raw.endpoint, '--bucket', 'bench-raw'],
                ],
              }),
            )
          ).result;
          const server = await raw.stats();
          runs.push({
            contestant: 'upload',
            cores: c,
            round,
            line: { ...line, s3_server: server, stored: await raw.dataFiles('raw/') },
          });
        } finally {
          await raw.close();
          await rm(lake, { recursive: true, force: true });
        }
      }
    }

    const figures: E2eFigures = {
      window,
      rowsPerDay,
      seed,
      report,
      document,
      runs,
      cpus: { one: one ?? null, two: two ?? 'unpinned', rest: rest ?? null },
      benchSeconds: Number(((performance.now() - benchStarted) / 1000).toFixed(1)),
      loadAverage: { before: loadBefore, after: loadavg() },
    };
    printE2eReport(figures);
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(data, { recursive: true, force: true });
  }
}

await main();
