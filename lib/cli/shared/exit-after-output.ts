/**
 * Ends the process with `code` once everything written to stdout and stderr has left.
 * On a pipe Node writes stdout asynchronously: `process.exit` right after a large write
 * drops what is still buffered (a piped `query --format csv` used to stop at 64 KiB).
 * A write's callback runs once it and every earlier write have been handed to the OS.
 * The exit then is explicit (not left to the event loop) so that a handle a command
 * leaves open (a keep-alive socket, a timer) cannot keep the CLI running.
 */
export function exitAfterOutput(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const flushed = (): void => {
    pending -= 1;
    if (pending === 0) process.exit(code);
  };
  for (const stream of [process.stdout, process.stderr]) {
    // A closed reader (`| head`) cannot take more; nothing is left to wait for.
    if (stream.destroyed || stream.writableEnded) flushed();
    else stream.write('', () => flushed());
  }
}
