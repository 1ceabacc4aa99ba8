import { format } from 'node:util';
import type { IOStreams } from './io-streams';

/**
 * While a command prints one JSON document, stdout is the document's alone: anything else
 * written there meanwhile (console.log, console.info, console.debug, process.stdout.write
 * of a library, a notice, a progress line) goes to stderr, so `cmd --json | jq` always
 * reads exactly one document.
 */
interface ReservedStdout {
  /** Writes to the real stdout (the document). */
  write(text: string): void;
  /** Gives stdout back. */
  release(): void;
}

/**
 * Reserves the command's stdout for the document until `release()`. What the rest of the
 * process writes to its own stdout or console meanwhile goes to the command's stderr.
 */
export function reserveStdout(io: Pick<IOStreams, 'stdout' | 'stderr'>): ReservedStdout {
  // A command on streams of its own (in-process, a test's): nothing else writes to them,
  // and the process's stdout and console stay as they are.
  if (io.stdout !== process.stdout) return { write: (text) => void io.stdout.write(text), release: () => {} };
  const stdout = process.stdout;
  const realWrite = stdout.write;
  const document =
    io.stdout === process.stdout
      ? (text: string) => realWrite.call(stdout, text)
      : io.stdout.write.bind(io.stdout);
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStderr = (...args: unknown[]): void => {
    io.stderr.write(`${format(...args)}\n`);
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    io.stderr.write(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof stdout.write;
  let released = false;
  return {
    write(text) {
      document(text);
    },
    release() {
      if (released) return;
      released = true;
      stdout.write = realWrite;
      Object.assign(console, saved);
    },
  };
}
