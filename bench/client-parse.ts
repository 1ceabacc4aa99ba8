/**
 * Benchmark of the client's streaming result parser.
 *
 *   tsx bench/client-parse.ts [--rows N] [--file path] [--gzip]
 *
 * Default: starts the local service in a child process (so its generation and gzip do not
 * share this process's CPU or memory), runs a one-weekday report sized to about N rows
 * (default 1,000,000), streams the result through the client and prints one JSON line:
 * {rows, seconds, rows_per_s, mb_per_s, peak_rss_mb}. `--file` parses a saved result
 * document instead (what the export benchmark does). Over loopback the body is asked
 * without compression (the local service's gzip costs more CPU than parsing); `--gzip`
 * measures with it.
 */
import { spawn } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  createClient,
  parseReportResultStream,
  type ReportResultBatchStream,
  TokenProvider,
} from '../lib/api';
import { nodeHttpFetch } from '../lib/api/http/node-fetch';
import { loginWithAutoApproval } from '../lib/local/auto-approve-login';

interface SimInfo {
  baseUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  workspaceId: string;
  reportIds: string[];
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 25);

async function consume(stream: ReportResultBatchStream): Promise<number> {
  let rows = 0;
  for await (const batch of stream.batches) rows += batch.length;
  const meta = await stream.done();
  if (meta.rowsRead !== rows) throw new Error('row count mismatch');
  return rows;
}

async function startChildSimulator(rowsPerDay: number): Promise<{ info: SimInfo; stop: () => void }> {
  const script = `
    const { startSimulator } = await import(${JSON.stringify(new URL('../lib/simulator/index.ts', import.meta.url).pathname)});
    const sim = await startSimulator({ autoApprove: true, reportLatencyMs: 0, rowsPerDay: ${rowsPerDay}, rowLimit: 10000000 });
    console.log(JSON.stringify({ ...sim, faults: undefined }));
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return { info: JSON.parse(line) as SimInfo, stop: () => child.kill() };
}

async function fromService(
  rows: number,
  gzip: boolean,
): Promise<{ rows: number; bytes: number; seconds: number }> {
  const { info, stop } = await startChildSimulator(rows);
  try {
    const client = {
      authUrl: info.authUrl,
      clientId: info.clientId,
      clientSecret: info.clientSecret,
      redirectUri: info.redirectUri,
    };
    const tokens = await loginWithAutoApproval(client);
    const auth = new TokenProvider({ client, tokens });
    // The client's own default fetch, asked for an uncompressed body unless --gzip.
    const encoding: typeof nodeHttpFetch = (input, init) => {
      const headers = new Headers(init?.headers);
      if (!gzip) headers.set('accept-encoding', 'identity');
      return nodeHttpFetch(input, { ...init, headers });
    };
    const api = createClient({
      baseUrl: info.baseUrl,
      auth,
      workspaceId: info.workspaceId,
      fetch: encoding,
      timeoutMs: 120_000,
    });
    const reportId = info.reportIds[0] as string;
    // A Wednesday: a full weekday of generated calls.
    const run = await api.reporting.requestReport({
      reportId,
      period: { start: '2026-11-04T00:00:00Z', end: '2026-11-05T00:00:00Z' },
    });
    const ref = { reportId, requestId: run.requestId };
    await api.reporting.waitForCompletion(ref, { pollIntervalMs: 50, maxPolls: 100 });
    const started = performance.now();
    const stream = await api.reporting.openResult(ref);
    const count = await consume(stream);
    return { rows: count, bytes: 0, seconds: (performance.now() - started) / 1000 };
  } finally {
    stop();
  }
}

async function fromFile(path: string): Promise<{ rows: number; bytes: number; seconds: number }> {
  const started = performance.now();
  const stream = await parseReportResultStream(createReadStream(path, { highWaterMark: 256 * 1024 }));
  const rows = await consume(stream);
  return { rows, bytes: statSync(path).size, seconds: (performance.now() - started) / 1000 };
}

const file = arg('file');
const result = file
  ? await fromFile(file)
  : await fromService(Number(arg('rows') ?? 1_000_000), process.argv.includes('--gzip'));
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage.rss());
console.log(
  JSON.stringify({
    source: file ? 'file' : process.argv.includes('--gzip') ? 'service-gzip' : 'service',
    rows: result.rows,
    seconds: Number(result.seconds.toFixed(3)),
    rows_per_s: Math.round(result.rows / result.seconds),
    ...(result.bytes > 0 ? { mb_per_s: Number((result.bytes / 1e6 / result.seconds).toFixed(1)) } : {}),
    peak_rss_mb: Math.round(peakRss / 1024 / 1024),
  }),
);
