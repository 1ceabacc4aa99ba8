#!/usr/bin/env node
import { runProgram } from '../lib/cli/main';

runProgram(process.argv.slice(2));
