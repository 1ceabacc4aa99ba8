/**
 * While a command prints one JSON document, stdout is the document's alone: anything else
 * written there meanwhile (console.log, console.info, console.debug, process.stdout.write
 * of a library, a notice, a progress line) goes to stderr, so `cmd --json | jq` always
 * reads exactly one document.
 */
export interface ReservedStdout {
  /** Writes to the real stdout (the document). */
  write(text: string): void;
  /** Gives stdout back. */
  release(): void;
}

/** Reserves stdout for the document until `release()`. */
export function reserveStdout(): ReservedStdout {
  const stdout = process.stdout;
  const realWrite = stdout.write;
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStderr = (...args: unknown[]): void => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  stdout.write = ((...args: Parameters<typeof stdout.write>) =>
    (process.stderr.write as (...a: unknown[]) => boolean)(...args)) as typeof stdout.write;
  let released = false;
  return {
    write(text) {
      realWrite.call(stdout, text);
    },
    release() {
      if (released) return;
      released = true;
      stdout.write = realWrite;
      Object.assign(console, saved);
    },
  };
}
