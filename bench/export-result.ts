/**
 * The last stdout line of an export contestant:
 * {"contestant":..,"rows":..,(extra)..,"seconds":..,"rows_per_s":..,"peak_rss_mb":..}.
 * `started` is a performance.now() reading taken before the contestant's work began.
 */
export function printContestantResult(
  contestant: string,
  rows: number,
  started: number,
  extra: Record<string, unknown> = {},
): void {
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    `${JSON.stringify({
      contestant,
      rows,
      ...extra,
      seconds: Number(seconds.toFixed(3)),
      rows_per_s: Math.round(rows / seconds),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    })}\n`,
  );
}
