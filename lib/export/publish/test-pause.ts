import { writeFileSync } from 'node:fs';

/**
 * A hook for tests only: `REPORT_EXPORT_TEST_PAUSE=<point>[#<n>]:<file>` stops the publish
 * step of this process for good at the n-th time (default the first) it reaches `<point>`,
 * after writing `<file>` (this process's pid and the point), so that a test can kill the run
 * at a known phase (test/cli/local/kill.test.ts). Every later arrival at the point stops
 * too. Points:
 *
 * - `publish`: the run's rows are exported and verified, its leases held, nothing staged;
 * - `stage`: after the n-th file staged (the staging owner record written, no promotion);
 * - `promote`: a partition's parts are copied over the published ones, its manifest not
 *   written yet (partitions reaching it earlier are promoted whole).
 *
 * Unset (always, outside tests) it costs one environment lookup. The local runtime passes
 * the variable on to the functions' processes (lib/local/local-deployment.ts).
 */
export const TEST_PAUSE_VARIABLE = 'REPORT_EXPORT_TEST_PAUSE';

export type TestPausePoint = 'publish' | 'stage' | 'promote';

const arrivals = new Map<string, number>();
let signalled = false;

/** Resolves at once unless the test hook names this point and its count is reached; then never. */
export async function testPause(point: TestPausePoint): Promise<void> {
  const spec = process.env[TEST_PAUSE_VARIABLE];
  if (spec === undefined || spec === '') return;
  const m = /^([a-z]+)(?:#(\d+))?:(.+)$/.exec(spec);
  if (m === null || m[1] !== point) return;
  const count = (arrivals.get(point) ?? 0) + 1;
  arrivals.set(point, count);
  if (count < Number(m[2] ?? 1)) return;
  if (!signalled) {
    signalled = true;
    writeFileSync(m[3] as string, `${JSON.stringify({ pid: process.pid, point, count })}\n`);
  }
  await new Promise<never>(() => {});
}
