import { processInterrupt } from './interrupt';
import type { TerminalStream } from './terminal';

/**
 * What a command reads and writes, passed in (the way gh passes `IOStreams` to its commands)
 * rather than taken from `process`: the program gives the process's own
 * ({@link processStreams}), a test gives strings it reads back afterwards, and the command
 * cannot tell. Environment variables come the same way: a command reads `io.env`, never
 * `process.env`.
 */
export interface IOStreams {
  /** Standard input; `isTTY` when a person types into it. */
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** What the command answers (a table, one JSON document ...). */
  readonly stdout: TerminalStream;
  /** Progress, notices, warnings and errors. */
  readonly stderr: TerminalStream;
  /** Environment variables (REPORT_EXPORT_*, AWS_*, NO_COLOR, TERM, PATH ...). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working directory: where the config file is looked for, and relative defaults resolve. */
  readonly cwd: string;
  /**
   * Aborts when the user interrupts the command (Ctrl+C, a TERM): the program's one handler
   * of the signals (interrupt.ts). A command that stops gracefully reads it; none in tests
   * that do not interrupt.
   */
  readonly signal?: AbortSignal | undefined;
}

/** The process's own streams, environment and interrupt: what the installed program runs with. */
export function processStreams(): IOStreams {
  const interrupt = processInterrupt();
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    // On first read only: the signals' handlers are installed for a command that asks.
    get signal() {
      return interrupt();
    },
  };
}
