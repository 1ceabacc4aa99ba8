#!/usr/bin/env node
import { main, PROGRAM } from '../lib/cli/main';
import { exitAfterOutput } from '../lib/cli/shared/exit-after-output';
import { describeFailure, exitCodeOf } from '../lib/command-line/options';

main(process.argv.slice(2)).then(
  (code) => exitAfterOutput(code),
  (error: unknown) => {
    process.stderr.write(describeFailure(PROGRAM, error));
    exitAfterOutput(exitCodeOf(error));
  },
);
