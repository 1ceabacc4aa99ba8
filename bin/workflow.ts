#!/usr/bin/env node
import { runProgram } from '../lib/cli';

// `npm run workflow -- ...` is `report-export workflow ...`.
runProgram(['workflow', ...process.argv.slice(2)], 'npm run workflow');
