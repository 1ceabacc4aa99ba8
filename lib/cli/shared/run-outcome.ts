import type { FinalizeOutput, HeldReportPartition, PartialDay } from '../../workflow';
import { HELD_EXIT_CODE } from './exit-codes';
import { formatCount } from './terminal';

/**
 * What every command that runs the workflow (`npm start`, `run`, `workflow`, `start`,
 * `backfill`) says beyond its rows: the partitions the shrink guard held and the days
 * published before they ended, from Finalize's outputs (one per execution of a chain).
 */

export { HELD_EXIT_CODE } from './exit-codes';

/** Held partitions and partial days over the executions of a run. */
export interface RunOutcome {
  /** Partitions the shrink guard held, over every execution (each lists its first ones). */
  heldPartitions: number;
  /** The held partitions listed, by day. */
  held: HeldReportPartition[];
  /** Days published before they ended, one per day with its earliest cut-off, by day. */
  partialDays: PartialDay[];
}

const byDay = (a: { dt: string }, b: { dt: string }) => (a.dt < b.dt ? -1 : a.dt > b.dt ? 1 : 0);

/** The outcome of Finalize's outputs (a deployment older than these members counts none). */
export function runOutcome(
  summaries: readonly Partial<Pick<FinalizeOutput, 'heldPartitions' | 'held' | 'partialDays'>>[],
): RunOutcome {
  const partial = new Map<string, string>();
  for (const d of summaries.flatMap((s) => s.partialDays ?? [])) {
    const seen = partial.get(d.dt);
    if (seen === undefined || d.cutOff < seen) partial.set(d.dt, d.cutOff);
  }
  return {
    heldPartitions: summaries.reduce((n, s) => n + (s.heldPartitions ?? 0), 0),
    held: summaries.flatMap((s) => s.held ?? []).sort(byDay),
    partialDays: [...partial].map(([dt, cutOff]) => ({ dt, cutOff })).sort(byDay),
  };
}

/**
 * One held partition in words, both counts: a call list by its rows, a summary by the
 * calls its rows count (`basis`), e.g. `2026-11-16 "Call list by user": kept the published
 * 400 rows; this run had 100`.
 */
export function describeHeld(h: HeldReportPartition): string {
  const what = `${h.dt} "${h.reportName}"`;
  if (h.basis === 'calls') {
    return `${what}: kept the published ${formatCount(h.publishedCalls)} calls (${formatCount(h.publishedRows)} rows); this run had ${formatCount(h.calls)} calls (${formatCount(h.rows)} rows)`;
  }
  return `${what}: kept the published ${formatCount(h.publishedRows)} rows; this run had ${formatCount(h.rows)}`;
}

/** What replaces held partitions, on every command that runs the workflow here or in AWS. */
export const FORCE_REPLACE_FLAG = '--force-replace';

/**
 * A handler's warning as the CLI shows it: the shrink guard's (it carries `held`) names the
 * command line's flag rather than the execution input's `forceReplace`, which no one types
 * here; any other is its message.
 */
export function handlerWarning(message: string, held: readonly unknown[] | undefined): string {
  if (held === undefined || held.length === 0) return message;
  return `the shrink guard held ${held.length} partition(s): the published ones stay; run again with ${FORCE_REPLACE_FLAG} if the service corrected them`;
}

/**
 * The warning lines of an outcome (none when nothing was held or provisional), for stderr.
 * `intraday`: the run was a refresh of today, whose days are provisional by design: not warned.
 */
export function outcomeWarnings(outcome: RunOutcome, options: { intraday?: boolean } = {}): string[] {
  const lines: string[] = [];
  if (outcome.heldPartitions > 0) {
    const unlisted = outcome.heldPartitions - outcome.held.length;
    lines.push(
      `warning: the shrink guard held ${outcome.heldPartitions} partition(s): the lake keeps the published data of these days, since this run had far fewer rows (or calls); if the service corrected them, run again with ${FORCE_REPLACE_FLAG} (exit status ${HELD_EXIT_CODE})`,
      ...outcome.held.map((h) => `  held ${describeHeld(h)}`),
      ...(unlisted > 0 ? [`  ... and ${unlisted} more (the run records list them per job)`] : []),
    );
  }
  for (const d of options.intraday === true ? [] : outcome.partialDays) {
    lines.push(
      `warning: ${d.dt} is partial: it was exported before the day ended, with the calls up to ${d.cutOff} only (its rows carry provisional = true); a run after the day ends publishes it whole and settles it`,
    );
  }
  return lines;
}

/** 1 for a failed run, {@link HELD_EXIT_CODE} for one that held partitions, else 0. */
export function runExitCode(status: string, outcome: Pick<RunOutcome, 'heldPartitions'>): number {
  if (status !== 'SUCCEEDED') return 1;
  return outcome.heldPartitions > 0 ? HELD_EXIT_CODE : 0;
}
