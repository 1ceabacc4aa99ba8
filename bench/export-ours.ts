/**
 * Contestant "ours": file stream -> parseReportResultStream -> exportReportResult to a
 * local directory store. Usage: tsx bench/export-ours.ts --file DOC --out DIR
 * The document is read in 64 KiB chunks, about what the client gets from a response body.
 * Last stdout line: {"contestant":"ours","rows":..,"partitions":..,"files":..,"bytes":..,
 * "spilled_bytes":..,"seconds":..,"rows_per_s":..,"cpu_seconds":..,"cpu_seconds_per_row":..,
 * "peak_rss_mb":..}
 */
import { createReadStream } from 'node:fs';
import { parseReportResultStream } from '../lib/api/index';
import { exportReportResult } from '../lib/export/index';
import { LocalDirectoryStore } from '../lib/stores/local-directory-store';
import { printContestantResult } from './export-result';

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

const started = performance.now();
const source = await parseReportResultStream(createReadStream(arg('file'), { highWaterMark: 64 * 1024 }));
const summary = await exportReportResult({
  source,
  store: new LocalDirectoryStore(arg('out')),
  reportId: source.head.request.reportId,
  ...(process.env.BENCH_MAX_BUFFERED_ROWS === undefined
    ? {}
    : { maxBufferedRows: Number(process.env.BENCH_MAX_BUFFERED_ROWS) }),
  logger: {
    warn: (message, data) => process.stderr.write(`${message} ${JSON.stringify(data)}\n`),
    info: (message, data) => process.stderr.write(`${message} ${JSON.stringify(data)}\n`),
  },
});
printContestantResult('ours', summary.rows, started, {
  partitions: summary.partitions.length,
  files: summary.files,
  bytes: summary.bytes,
  // Local disk the export filled before publishing: sizes ExportResults' ephemeral storage.
  spilled_bytes: summary.spilledBytes,
});
