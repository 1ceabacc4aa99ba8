#!/usr/bin/env node
import { main } from '../lib/cli/main';
import { exitAfterOutput } from '../lib/cli/shared/exit-after-output';
import { describeFailure, exitCodeOf } from '../lib/command-line/options';

// `npm run sim -- ...` is `report-export sim ...`: one entry for every bin.
main(['sim', ...process.argv.slice(2)]).then(
  (code) => exitAfterOutput(code),
  (error: unknown) => {
    process.stderr.write(describeFailure('sim', error));
    exitAfterOutput(exitCodeOf(error));
  },
);
