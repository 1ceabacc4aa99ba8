import type { Colors } from './terminal';

/**
 * How the CLI shows a freshness verdict. The reader and the judgement (`tenantFreshness`) are
 * lib/workflow's (tenant-freshness.ts), which the nightly digest reads too.
 */

/** A verdict as a table cell: `error` red, `warn` yellow, `ok` green (colour only on a terminal). */
export function verdictCell(c: Colors): (verdict: unknown) => string {
  return (v) => (v === 'error' ? c.red('error') : v === 'warn' ? c.yellow('warn') : c.green(String(v)));
}
