/**
 * `tsx bench/table-commits.ts [--commits N]` (default 1,000): what an Iceberg commit costs.
 *
 * 1. Nightly commits, N of them, into one table of a file catalog on a local directory (the
 *    local lake), one per simulated night (the clock steps a day per commit): each replaces
 *    the report's last 3 days (a nightly run with a look-back of 2) with one data file a day,
 *    so every commit deletes files of the two commits before it. Run twice: with the
 *    retention the stack configures (snapshots older than 7 days expired, at least 1 kept:
 *    lib/export/table TABLE_RETENTION; Glue's optimizer applies it in AWS, the commit itself
 *    here) and without any. Prints per commit: time (median and p95 over commits 101-200
 *    and over the last 100), store requests, and at the end the metadata file's bytes, the
 *    snapshots it holds and the manifests the current snapshot lists (merged on commit from
 *    100 of them, Iceberg's default `commit.manifest.min-count-to-merge`).
 * 2. The reference, in the same run: the export of the same small result (3 days, 300 rows)
 *    published as a Hive layout (Parquet promoted beside the CSV) and into the tables (Parquet
 *    committed), alternating, 15 of each: the median time and the store requests of each, and
 *    their ratio (what the table commit adds to a run's publish).
 * Ends with one JSON line of every figure. Progress on stderr.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportReportResult } from '../lib/export/index';
import { tableSchema } from '../lib/export/schema';
import {
  commitOverwrite,
  currentSnapshot,
  ensureTable,
  lakeTable,
  loadTable,
  TABLE_RETENTION,
} from '../lib/export/table/index';
import { readManifestList, tableIo } from '../lib/export/table/manifest/manifest-io';
import { dateToDays, daysToDate } from '../lib/export/table/manifest/partition-values';
import { fileCatalogOf, LocalDirectoryStore, type ObjectStore } from '../lib/stores/index';
import { callsOn, resultStreamOf } from '../test/support/result-stream';

const DAY_MS = 86_400_000;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1] ?? fallback) : fallback;
}

function log(message: string): void {
  process.stderr.write(`[table-commits] ${message}\n`);
}

/** Counts every store operation (what a commit costs in requests to S3). */
function counted(store: ObjectStore): { store: ObjectStore; count: () => number } {
  let n = 0;
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function' || name === 'constructor') return value;
      return (...args: unknown[]) => {
        n++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, count: () => n };
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const p95 = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? 0;

async function nightly(commits: number, retention: boolean) {
  const root = await mkdtemp(join(tmpdir(), 'bench-commits-'));
  try {
    const store = new LocalDirectoryStore(root);
    const table = lakeTable(
      { store, prefix: '', catalog: fileCatalogOf({ store, prefix: '' }), namespace: '' },
      'calls',
    );
    const start = Date.parse('2024-01-01T02:00:00Z');
    let night = 0;
    const now = () => start + night * DAY_MS;
    await ensureTable(table, tableSchema({ dataset: 'calls' }), { now });
    const times: number[] = [];
    const requests: number[] = [];
    const first = dateToDays('2024-01-01');
    for (night = 1; night <= commits; night++) {
      const dts = [night - 2, night - 1, night].filter((d) => d >= 0).map((d) => daysToDate(first + d));
      const files = dts.map((dt) => ({
        key: `tables/calls/data/report_id=r1/dt=${dt}/run-${night}-00000.parquet`,
        dt,
        rows: 1000,
        bytes: 90_000,
      }));
      const t0 = performance.now();
      const result = await commitOverwrite(
        table,
        { reportId: 'r1', dts, files, summary: { 'report-export.run-id': `run-${night}` } },
        { now, expire: retention },
      );
      times.push(performance.now() - t0);
      requests.push(result.requests);
      if (night % 250 === 0) log(`${retention ? 'retention' : 'no retention'}: ${night} commits`);
    }
    const loaded = await loadTable(table);
    const metadataBytes = Buffer.byteLength(
      await table.catalog.readMetadata(loaded?.base.metadataLocation as string),
    );
    const snapshot = loaded === undefined ? undefined : currentSnapshot(loaded.metadata);
    const upTo200 = times.slice(100, 200);
    return {
      ms_median_at_200: upTo200.length === 0 ? undefined : median(upTo200),
      ms_p95_at_200: upTo200.length === 0 ? undefined : p95(upTo200),
      ms_median_last_100: median(times.slice(-100)),
      ms_p95_last_100: p95(times.slice(-100)),
      manifests:
        snapshot === undefined ? 0 : (await readManifestList(tableIo(table.location), snapshot)).length,
      requests_median: median(requests),
      requests_last: requests.at(-1) ?? 0,
      metadata_bytes: metadataBytes,
      snapshots: loaded?.metadata.snapshots.length ?? 0,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function publishReference(rounds: number) {
  const root = await mkdtemp(join(tmpdir(), 'bench-publish-'));
  const days = ['2026-11-20', '2026-11-21', '2026-11-22'];
  const rows = callsOn(days, 100, 'b');
  const out: Record<'hive' | 'iceberg', { ms: number[]; requests: number[] }> = {
    hive: { ms: [], requests: [] },
    iceberg: { ms: [], requests: [] },
  };
  try {
    for (const mode of ['hive', 'iceberg'] as const) {
      // A first run of each publishes the days once: the measured runs replace them, as nightly runs do.
      const base = new LocalDirectoryStore(join(root, mode));
      await exportReportResult({
        source: resultStreamOf(rows),
        store: base,
        reportId: 'r1',
        windowDates: days,
        encodeWorker: false,
        ...(mode === 'iceberg'
          ? { tables: { catalog: fileCatalogOf({ store: base, prefix: '' }), namespace: '' } }
          : {}),
      });
    }
    for (let i = 0; i < rounds; i++) {
      for (const mode of i % 2 === 0 ? (['hive', 'iceberg'] as const) : (['iceberg', 'hive'] as const)) {
        const { store, count } = counted(new LocalDirectoryStore(join(root, mode)));
        const t0 = performance.now();
        await exportReportResult({
          source: resultStreamOf(rows, { requestId: `req-${i}` }),
          store,
          reportId: 'r1',
          windowDates: days,
          encodeWorker: false,
          ...(mode === 'iceberg'
            ? { tables: { catalog: fileCatalogOf({ store, prefix: '' }), namespace: '' } }
            : {}),
        });
        out[mode].ms.push(performance.now() - t0);
        out[mode].requests.push(count());
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return {
    hive_ms: median(out.hive.ms),
    iceberg_ms: median(out.iceberg.ms),
    hive_requests: median(out.hive.requests),
    iceberg_requests: median(out.iceberg.requests),
  };
}

const commits = arg('commits', 1000);
log(
  `${commits} nightly commits with the stack's retention (${TABLE_RETENTION.snapshotRetentionDays} days, ${TABLE_RETENTION.snapshotsToRetain} kept)`,
);
const kept = await nightly(commits, true);
log(`${commits} nightly commits without retention`);
const all = await nightly(commits, false);
log('the reference: one export published as a Hive layout and into the tables, 15 rounds');
const reference = await publishReference(15);

const f = (n: number) => n.toFixed(1);
type Series = Awaited<ReturnType<typeof nightly>>;
const times = (s: Series) =>
  `${s.ms_median_at_200 === undefined ? '' : `commits 101-200: ${f(s.ms_median_at_200)} ms median (p95 ${f(s.ms_p95_at_200 ?? 0)} ms); `}last 100 of ${commits}: ${f(s.ms_median_last_100)} ms median (p95 ${f(s.ms_p95_last_100)} ms)`;
process.stdout.write(
  [
    `Iceberg commits: ${commits} nightly commits (3 days replaced each), file catalog on local disk`,
    `  with retention ${TABLE_RETENTION.snapshotRetentionDays} d: ${times(kept)}, ${kept.requests_median} store requests a commit, metadata ${(kept.metadata_bytes / 1024).toFixed(1)} KiB holding ${kept.snapshots} snapshots, current snapshot lists ${kept.manifests} manifests`,
    `  without retention: ${times(all)}, ${all.requests_median} store requests a commit, metadata ${(all.metadata_bytes / 1024).toFixed(1)} KiB holding ${all.snapshots} snapshots, current snapshot lists ${all.manifests} manifests`,
    `Publish of one run (3 days, 300 rows), median of 15: Hive layout ${f(reference.hive_ms)} ms / ${reference.hive_requests} requests; Iceberg tables ${f(reference.iceberg_ms)} ms / ${reference.iceberg_requests} requests; ratio ${(reference.iceberg_ms / reference.hive_ms).toFixed(2)}x time, ${(reference.iceberg_requests / reference.hive_requests).toFixed(2)}x requests`,
    '',
  ].join('\n'),
);
process.stdout.write(
  `${JSON.stringify({
    commits,
    commit_ms_median: kept.ms_median_last_100,
    commit_ms_p95: kept.ms_p95_last_100,
    commit_ms_median_at_200: kept.ms_median_at_200,
    commit_ms_median_without_retention: all.ms_median_last_100,
    commit_ms_median_at_200_without_retention: all.ms_median_at_200,
    manifests_with_retention: kept.manifests,
    manifests_without_retention: all.manifests,
    commit_requests: kept.requests_median,
    metadata_bytes_with_retention: kept.metadata_bytes,
    snapshots_with_retention: kept.snapshots,
    metadata_bytes_without_retention: all.metadata_bytes,
    snapshots_without_retention: all.snapshots,
    publish_ms_hive: reference.hive_ms,
    publish_ms_iceberg: reference.iceberg_ms,
    publish_requests_hive: reference.hive_requests,
    publish_requests_iceberg: reference.iceberg_requests,
    iceberg_vs_hive_time: reference.iceberg_ms / reference.hive_ms,
  })}\n`,
);
