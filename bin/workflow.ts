#!/usr/bin/env node
import { exitAfterOutput } from '../lib/cli/exit-after-output';
import { main } from '../lib/cli/main';
import { describeFailure, exitCodeOf } from '../lib/cli/options';

// `npm run workflow -- ...` is `report-export workflow ...`.
main(['workflow', ...process.argv.slice(2)]).then(
  (code) => exitAfterOutput(code),
  (error: unknown) => {
    process.stderr.write(describeFailure('npm run workflow', error));
    exitAfterOutput(exitCodeOf(error));
  },
);
