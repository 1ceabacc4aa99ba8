/**
 * Runs one export in its own process and prints its peak RSS, for the memory tests
 * (memory-bounds.test.ts) and the benchmark (bench/run.ts). The result document is made
 * on the fly and parsed by the real client parser, so no row is ever held in full here.
 *
 * Usage: node --import tsx memory-child.ts --case large-rows|many-days --count N --out DIR
 *        [--worker FILE_URL] [--row-mb MB]
 * Last stdout line: {"case":..,"rows":..,"partitions":..,"files":..,"peak_rss_mb":..}
 */
import { parseReportResultStream } from '../../../lib/api/index';
import { exportReportResult } from '../../../lib/export/index';
import { LocalDirectoryStore } from '../../../lib/stores/local-directory-store';
import { documentChunks, type MemoryCase } from './memory-document';

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
const source = await parseReportResultStream(documentChunks(memoryCase, count, rowMb));
const summary = await exportReportResult({
  source,
  store: new LocalDirectoryStore(required('out')),
  reportId: 'report-1',
  encodeWorker: worker === undefined ? false : new URL(worker),
  logger: {
    warn: (message, data) => process.stderr.write(`${message} ${JSON.stringify(data)}\n`),
    info: () => undefined,
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
