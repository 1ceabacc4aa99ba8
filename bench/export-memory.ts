/**
 * Runs one export in its own process and prints its peak RSS, for the benchmark
 * (bench/run.ts, bundled) and the memory tests (test/integration/export/memory-bounds).
 * The rows are made as they are read (bench/memory-document.ts), so none is held here;
 * `--source json` makes the JSON document instead and parses it with the client.
 *
 * Usage: node export-memory.mjs --case large-rows|many-days --count N --out DIR
 *        [--worker FILE_URL] [--row-mb MB] [--source rows|json]
 * Last stdout line: {"case":..,"rows":..,"partitions":..,"files":..,"peak_rss_mb":..}
 */
import { parseReportResultStream } from '../lib/api/index';
import { exportReportResult } from '../lib/export/index';
import { LocalDirectoryStore } from '../lib/stores/local-directory-store';
import { documentChunks, type MemoryCase, memorySource } from './memory-document';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function required(name: string): string {
  const v = arg(name);
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

const memoryCase = required('case') as MemoryCase;
const count = Number(required('count'));
const rowMb = Number(arg('row-mb') ?? '4');
const worker = arg('worker');
// `--source json` goes through the client's parser too (its own memory included).
const source =
  arg('source') === 'json'
    ? await parseReportResultStream(documentChunks(memoryCase, count, rowMb))
    : memorySource(memoryCase, count, rowMb);
const summary = await exportReportResult({
  source,
  store: new LocalDirectoryStore(required('out')),
  reportId: 'report-1',
  encodeWorker: worker === undefined ? false : new URL(worker),
  logger: {
    warn: (message, data) => process.stderr.write(`${message} ${JSON.stringify(data)}\n`),
    info: (message, data) => {
      if (process.env.MEMORY_CHILD_VERBOSE === '1') {
        (globalThis as { gc?: () => void }).gc?.();
        process.stderr.write(`${message} ${JSON.stringify({ ...data, ...process.memoryUsage() })}\n`);
      }
    },
  },
});
process.stdout.write(
  `${JSON.stringify({
    case: memoryCase,
    rows: summary.rows,
    partitions: summary.partitions.length,
    files: summary.files,
    bytes: summary.bytes,
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  })}\n`,
);
