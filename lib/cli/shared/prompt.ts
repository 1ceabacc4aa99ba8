import { createInterface } from 'node:readline';
import type { IOStreams } from './io-streams';

/**
 * Asks a person for a value on the terminal. With `hidden`, what they type is not echoed
 * (a client secret must not stay on the screen or in a terminal recording). Only for an
 * interactive stdin: callers check `io.stdin.isTTY` first and ask for the
 * environment variable otherwise.
 */
export async function promptLine(
  io: Pick<IOStreams, 'stdin' | 'stderr'>,
  question: string,
  options: { hidden?: boolean } = {},
): Promise<string> {
  const input = io.stdin;
  const output = io.stderr;
  const rl = createInterface({ input, output: output as NodeJS.WritableStream, terminal: true });
  if (options.hidden) {
    // readline echoes through _writeToOutput; after the question, echo nothing.
    const muted = rl as unknown as { _writeToOutput: (text: string) => void };
    let asked = false;
    muted._writeToOutput = (text: string) => {
      if (!asked) {
        output.write(text);
        asked = true;
      } else if (text.includes('\n')) output.write('\n');
    };
  }
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.once('close', () => reject(new Error('input closed before a value was given')));
      rl.question(question, (answer) => resolve(answer.trim()));
    });
  } finally {
    rl.close();
  }
}
