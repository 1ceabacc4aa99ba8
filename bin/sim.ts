#!/usr/bin/env node
import { exitAfterOutput } from '../lib/cli/exit-after-output';
import { main } from '../lib/cli/main';
import { describeFailure, exitCodeOf } from '../lib/cli/options';

// `npm run sim -- ...` is `report-export sim ...`: one entry for every bin.
main(['sim', ...process.argv.slice(2)]).then(
  (code) => exitAfterOutput(code),
  (error: unknown) => {
    process.stderr.write(describeFailure('sim', error));
    exitAfterOutput(exitCodeOf(error));
  },
);
