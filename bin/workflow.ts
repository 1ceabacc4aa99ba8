#!/usr/bin/env node
import { main } from '../lib/cli/main';
import { exitAfterOutput } from '../lib/cli/shared/exit-after-output';
import { describeFailure, exitCodeOf } from '../lib/command-line/options';

// `npm run workflow -- ...` is `report-export workflow ...`.
main(['workflow', ...process.argv.slice(2)]).then(
  (code) => exitAfterOutput(code),
  (error: unknown) => {
    process.stderr.write(describeFailure('npm run workflow', error));
    exitAfterOutput(exitCodeOf(error));
  },
);
