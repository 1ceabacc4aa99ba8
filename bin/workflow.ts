#!/usr/bin/env node
import { describeFailure, exitCodeOf } from '../lib/cli/options';
import { workflowCommand } from '../lib/cli/workflow-command';

workflowCommand(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(describeFailure('npm run workflow', error));
    process.exit(exitCodeOf(error));
  },
);
