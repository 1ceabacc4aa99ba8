/**
 * Defaults several commands share, declared once: the code and the `--help` text both take
 * them from here, so a default and its description cannot drift apart.
 */
export const CLI_DEFAULTS = {
  /** Where a local export writes its lake (`npm start`, `run`, `workflow`) and `query`/`runs` read it. */
  lakeDir: 'data-lake',
  /** Calls the local service generates per weekday (`npm start`, `workflow`). */
  rowsPerDay: 2000,
  /** Pause between status polls of an execution or a report (`start`, `run`). */
  pollMs: 2000,
} as const;

/** What an option whose default is the lake directory declares (spread into its spec). */
export const LAKE_DIR_DEFAULT = {
  default: CLI_DEFAULTS.lakeDir,
  defaultText: `./${CLI_DEFAULTS.lakeDir}`,
} as const;

/** `(default ./data-lake)`-style help text of a default. */
export function defaultHelp(value: string | number, asPath = false): string {
  return `(default ${asPath ? `./${value}` : value})`;
}
