/**
 * Contestant 4 of the end-to-end bench (bench/e2e.ts): the raw upload of the export's output
 * bytes to S3 on fauxqs with @aws-sdk/lib-storage's Upload, nothing else (no staging, no
 * verification, no promotion): the least time any store could spend getting those bytes
 * there. The files are the data files (Parquet, CSV) the directory contestant published;
 * four uploads at once, as the export stages its files (lib/export/publish/publish.ts),
 * each with Upload's defaults (5 MiB parts, 4 at once), streamed from disk.
 *
 * Usage: tsx bench/e2e-upload.ts --dir DIR --endpoint URL --bucket B
 * Last stdout line: {"contestant":"raw-upload","files":..,"bytes":..,"seconds":..,
 *                    "mb_per_s":..,"cpu_seconds":..,"peak_rss_mb":..}
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { Upload } from '@aws-sdk/lib-storage';
import { createS3Client } from '../lib/stores/s3-store';

const CONCURRENCY = 4;

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

async function dataFiles(dir: string): Promise<{ path: string; bytes: number }[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: { path: string; bytes: number }[] = [];
  for (const e of entries) {
    if (!e.isFile() || !/\.(parquet|csv|csv\.gz)$/.test(e.name)) continue;
    const path = join(e.parentPath, e.name);
    files.push({ path, bytes: (await stat(path)).size });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}

const dir = arg('dir');
const bucket = arg('bucket');
const client = createS3Client({
  endpoint: arg('endpoint'),
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  maxAttempts: 2,
});
const files = await dataFiles(dir);
if (files.length === 0) throw new Error(`no data files under ${dir}`);
const cpuBefore = process.cpuUsage();
const started = performance.now();
let next = 0;
const worker = async () => {
  for (let i = next++; i < files.length; i = next++) {
    const file = files[i] as { path: string; bytes: number };
    await new Upload({
      client,
      params: { Bucket: bucket, Key: `raw/${relative(dir, file.path)}`, Body: createReadStream(file.path) },
    }).done();
  }
};
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
client.destroy();
const bytes = files.reduce((n, f) => n + f.bytes, 0);
process.stdout.write(
  `${JSON.stringify({
    contestant: 'raw-upload',
    files: files.length,
    bytes,
    seconds: Number(seconds.toFixed(3)),
    mb_per_s: Number((bytes / 1048576 / seconds).toFixed(1)),
    cpu_seconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  })}\n`,
);
