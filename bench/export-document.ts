/**
 * Produces a report result document with the local service: starts the simulator,
 * authorizes (autoApprove), requests a fixed 92-day window, polls, and streams the data
 * endpoint to a file. Usage: tsx bench/export-document.ts --rows N --out FILE
 * Last stdout line: {"file":..,"rows":..,"bytes":..}
 */
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { loginWithAutoApproval } from '../lib/local/auto-approve-login';
import { startSimulator } from '../lib/simulator/index';

const DAYS = 92;
/** Weekdays count fully, Saturdays 15 % and Sundays 8 % (the generator's shares). */
const EFFECTIVE_DAYS_PER_WEEK = 5 + 0.15 + 0.08;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

async function main(): Promise<void> {
  const rows = Number(arg('rows', '1000000'));
  const out = arg('out', '/tmp/report-document.json');
  const rowsPerDay = Math.max(1, Math.floor(rows / ((DAYS / 7) * EFFECTIVE_DAYS_PER_WEEK)));
  // A row limit above the window's rows: the document is complete (rowLimitExceeded false).
  const sim = await startSimulator({
    autoApprove: true,
    reportLatencyMs: 0,
    rowsPerDay,
    rowLimit: Math.max(1_000_000, Math.ceil(rows * 1.1)),
  });
  try {
    const { accessToken } = await loginWithAutoApproval(sim);
    const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const reportId = sim.reportIds[0] as string;
    const base = `${sim.baseUrl}/v1.0/workspaces/${sim.workspaceId}/reports/${reportId}`;
    const created = await fetch(`${base}/requests`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        reportId,
        dateFilter: { start: '2026-01-01T00:00:00+00:00', end: '2026-04-03T00:00:00+00:00' },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const { data } = (await created.json()) as { data: { requestId: string } };
    // Bounded poll: latency is 0, so Complete comes at once; 50 tries at most.
    for (let i = 0; i < 50; i++) {
      const status = await fetch(`${base}/results/${data.requestId}`, {
        headers,
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await status.json()) as { data: { status: string } };
      if (body.data.status === 'Complete') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const result = await fetch(`${base}/results/${data.requestId}/data`, {
      headers,
      signal: AbortSignal.timeout(600_000),
    });
    if (!result.ok || result.body === null) throw new Error(`data endpoint answered ${result.status}`);
    await pipeline(
      Readable.fromWeb(result.body as import('node:stream/web').ReadableStream),
      createWriteStream(out),
    );
    const bytes = (await stat(out)).size;
    // totalCount sits in the head; read it from the first 64 KiB.
    const fd = await import('node:fs/promises').then((fs) => fs.open(out, 'r'));
    const head = Buffer.alloc(65_536);
    await fd.read(head, 0, head.length, 0);
    await fd.close();
    const total = /"totalCount"\s*:\s*"?(\d+)/.exec(head.toString('utf8'))?.[1];
    process.stdout.write(`${JSON.stringify({ file: out, rows: Number(total), bytes })}\n`);
  } finally {
    await sim.close();
  }
}

await main();
