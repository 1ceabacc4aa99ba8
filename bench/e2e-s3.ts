/**
 * S3 on fauxqs for the end-to-end bench (bench/e2e.ts), in a process of its own so its CPU
 * and memory are counted apart from the contestant's (in AWS, S3 is not on the function's
 * vCPU). Bound to 127.0.0.1 as test/integration/stores/local-s3.ts has it, with one bucket.
 *
 * Usage: tsx bench/e2e-s3.ts --bucket B
 * Prints {"endpoint":..} once listening. Then each line "stats" on stdin answers with
 * {"cpu_seconds":..,"peak_rss_mb":..,"rss_mb":..} (CPU since listening); stdin's end closes
 * the server and the process.
 */
import { createInterface } from 'node:readline';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { buildApp } from 'fauxqs';
import { createS3Client } from '../lib/stores/s3-store';

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

const app = buildApp({ logger: false });
const endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
const client = createS3Client({
  endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  maxAttempts: 2,
});
await client.send(new CreateBucketCommand({ Bucket: arg('bucket') }));
client.destroy();
const cpuBefore = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ endpoint })}\n`);

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on('line', (line) => {
  if (line.trim() !== 'stats') return;
  const cpu = process.cpuUsage(cpuBefore);
  process.stdout.write(
    `${JSON.stringify({
      cpu_seconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      rss_mb: Math.round(process.memoryUsage.rss() / 1048576),
    })}\n`,
  );
});
lines.on('close', () => {
  void app.close().then(() => process.exit(0));
});
