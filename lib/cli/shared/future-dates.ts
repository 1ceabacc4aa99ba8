import { dateInZone } from '../../calendar';
import { UsageError } from '../../command-line';

/** The dates of a command line that name days: `--date`, or `--from`/`--to`. */
interface DateFlags {
  date?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * Refuses (exit 2) a day after today in the tenant's zone. Such a day has had no calls:
 * the export would publish empty partitions for it, which read as "no calls that day"
 * until someone runs it again, and a mistyped year (2062 for 2026) is the usual cause.
 * Refused rather than warned about: a warning scrolls past in a script's log while the
 * empty days stay in the lake; refusing costs a re-run with the right date. Today itself
 * is accepted, never as a whole day: see {@link partialDayWarning}.
 */
export function refuseFutureDates(flags: DateFlags, timeZone: string, now: Date = new Date()): void {
  const today = dateInZone(now.getTime(), timeZone);
  const named: [string, string | undefined][] = [
    ['--date', flags.date],
    ['--to', flags.to],
    ['--from', flags.from],
  ];
  const [flag, day] = named.find(([, d]) => d !== undefined && d > today) ?? [];
  if (flag === undefined || day === undefined) return;
  const fix =
    flag === '--date'
      ? `give --date ${today} or earlier`
      : flags.from !== undefined && flags.from > today
        ? `give --from (and --to) ${today} or earlier`
        : `give --to ${today} or earlier`;
  throw new UsageError(
    `${flag} ${day} is after today (${today}) in the tenant's time zone ${timeZone}: a day that has not happened has no calls, and exporting it would publish empty partitions that read as "no calls"; ${fix}`,
  );
}

/**
 * The warning for a command line whose last day (`--date`, `--to`) is today in the tenant's
 * zone, or undefined: such a day is accepted (an operator may want today's calls so far) but
 * is partial, with the calls up to the moment the service is asked, and must never pass for
 * a whole day. The run's output and record then list it with its cut-off.
 */
export function partialDayWarning(
  flags: DateFlags,
  timeZone: string,
  now: Date = new Date(),
): string | undefined {
  const today = dateInZone(now.getTime(), timeZone);
  const [flag] =
    (
      [
        ['--date', flags.date],
        ['--to', flags.to],
      ] as const
    ).find(([, d]) => d === today) ?? [];
  if (flag === undefined) return undefined;
  return `warning: ${flag} ${today} is today in the tenant's time zone ${timeZone}: the day is not over, so it is exported partial, with the calls up to when the service is asked (about ${now.toISOString()}), and listed as partial with its cut-off; a run after the day ends publishes it whole`;
}
