#!/usr/bin/env node
import { runProgram } from '../lib/cli';

// `npm run sim -- ...` is `report-export sim ...`: one entry for every bin.
runProgram(['sim', ...process.argv.slice(2)], 'sim');
