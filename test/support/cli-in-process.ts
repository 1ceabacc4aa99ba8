import { Readable } from 'node:stream';
import { main, PROGRAM } from '../../lib/cli/main';
import type { IOStreams } from '../../lib/cli/shared/io-streams';
import { describeFailure, exitCodeOf } from '../../lib/command-line/options';
import { baseEnv, type CliRun } from './cli-process';

export interface InProcessOptions {
  /** Text on the command's stdin. Default: an empty stdin. */
  stdin?: string;
  /** Variables set on top of the base environment (NO_COLOR=1 is always set). */
  env?: Record<string, string | undefined>;
  /** True: the base environment is only PATH, HOME, TMPDIR, LANG and NODE_OPTIONS (see cli-process.ts). */
  cleanEnv?: boolean;
  /** The command's working directory. Default this process's. */
  cwd?: string;
  /** The streams claim to be a terminal (stdin, stdout and stderr). Default false, as in a pipe. */
  tty?: boolean;
}

/**
 * Runs the program's `main` in this process, as bin/report-export.ts does (a thrown error is
 * described on stderr with its exit code), on streams of strings and an environment of its
 * own: what a subprocess test sees, without a process per test. Tests of what only a
 * process shows (the built binary, signals, kill -9, exit flushing) start one instead
 * (cli-process.ts).
 */
export async function runInProcess(argv: readonly string[], options: InProcessOptions = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const tty = options.tty === true;
  const stdin = Object.assign(
    Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    {
      isTTY: tty,
    },
  );
  const width = tty ? { columns: 100 } : {};
  const io: IOStreams = {
    stdin,
    stdout: { write: (chunk: string) => (stdout += chunk), isTTY: tty, ...width },
    stderr: { write: (chunk: string) => (stderr += chunk), isTTY: tty, ...width },
    env: { ...baseEnv(options.cleanEnv), NO_COLOR: '1', ...options.env },
    cwd: options.cwd ?? process.cwd(),
  };
  let code: number;
  try {
    code = await main(argv, io);
  } catch (error) {
    stderr += describeFailure(PROGRAM, error);
    code = exitCodeOf(error);
  }
  return { code, stdout, stderr };
}
