/**
 * Ctrl+C, once, for the whole program: the process's SIGINT and SIGTERM become one
 * AbortSignal, which the commands that stop gracefully (npm start, workflow, sim, directory
 * sync) get through their IOStreams (`io.signal`). The handlers are installed only when a
 * command first asks for the signal: a command that never does (query, runs...) keeps Node's
 * own end on the first signal. A second signal does not wait for the cleanup: the process
 * exits at once with {@link INTERRUPTED_EXIT_CODE}.
 */

/** As shells report a process ended by SIGINT (128 + 2). */
export const INTERRUPTED_EXIT_CODE = 130;

/** Why a command's signal aborted: the user interrupted it. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
  readonly code = 'CLI_INTERRUPTED';
}

/**
 * The process's interrupt: a function returning the one AbortSignal (made, and the handlers
 * installed, on its first call). `exit` ends the process on a second signal (tests replace it).
 */
export function processInterrupt(
  exit: (code: number) => void = (code) => process.exit(code),
): () => AbortSignal {
  let controller: AbortController | undefined;
  return () => {
    if (controller !== undefined) return controller.signal;
    const interrupt = new AbortController();
    controller = interrupt;
    const onSignal = (name: NodeJS.Signals) => {
      if (interrupt.signal.aborted) exit(INTERRUPTED_EXIT_CODE);
      else interrupt.abort(new InterruptedError(`interrupted (${name})`));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    return interrupt.signal;
  };
}
