/**
 * The last stdout line of an export contestant:
 * {"contestant":..,"rows":..,(extra)..,"seconds":..,"rows_per_s":..,"cpu_seconds":..,
 * "cpu_seconds_per_row":..,"peak_rss_mb":..}.
 * `started` is a performance.now() reading taken before the contestant's work began.
 * CPU is the process's user + system time (getrusage: every thread, the encode worker's and
 * DuckDB's own threads included) from its start, reading the document included.
 */
export function printContestantResult(
  contestant: string,
  rows: number,
  started: number,
  extra: Record<string, unknown> = {},
): void {
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage();
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  process.stdout.write(
    `${JSON.stringify({
      contestant,
      rows,
      ...extra,
      seconds: Number(seconds.toFixed(3)),
      rows_per_s: Math.round(rows / seconds),
      cpu_seconds: Number(cpuSeconds.toFixed(3)),
      cpu_seconds_per_row: rows > 0 ? Number((cpuSeconds / rows).toPrecision(3)) : null,
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    })}\n`,
  );
}
