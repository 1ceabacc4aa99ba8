/**
 * Defaults several commands share, declared once: the code and the `--help` text both take
 * them from here, so a default and its description cannot drift apart.
 */
/** The directory (relative to the working directory) a command keeps its state in: logins, leases, progress. */
const STATE_DIR = '.report-export';

export const CLI_DEFAULTS = {
  /** Where logins, leases and backfill progress are kept, relative to the working directory. */
  stateDir: STATE_DIR,
  /** Days a local export covers when `--from` is not given (ending at `--to`). */
  days: 7,
  /** The loopback redirect `login` listens on (registered with the OAuth client). */
  redirectUri: 'http://127.0.0.1:8000/',
  /** Where a local export writes its lake (`npm start`, `run`, `workflow`) and `query`/`runs` read it. */
  lakeDir: 'data-lake',
  /** Calls the local service generates per weekday (`npm start`, `workflow`). */
  rowsPerDay: 2000,
  /** Pause between status polls of an execution or a report (`start`, `run`). */
  pollMs: 2000,
  /** Length of every Wait state of a workflow run on the local service (`npm start`, `workflow`). */
  localWaitMs: 200,
  /** Where the local service's tokens are kept (`npm start`). */
  localSecretsFile: `${STATE_DIR}/secrets.json`,
  /** The production login `login` writes and the other commands read. */
  loginFile: `${STATE_DIR}/login.json`,
} as const;

/** What an option whose default is the lake directory declares (spread into its spec). */
export const LAKE_DIR_DEFAULT = {
  default: CLI_DEFAULTS.lakeDir,
  defaultText: `./${CLI_DEFAULTS.lakeDir}`,
} as const;
