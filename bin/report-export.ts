#!/usr/bin/env node
import { exitAfterOutput } from '../lib/cli/exit-after-output';
import { main, PROGRAM } from '../lib/cli/main';
import { describeFailure, exitCodeOf } from '../lib/cli/options';

main(process.argv.slice(2)).then(
  (code) => exitAfterOutput(code),
  (error: unknown) => {
    process.stderr.write(describeFailure(PROGRAM, error));
    exitAfterOutput(exitCodeOf(error));
  },
);
