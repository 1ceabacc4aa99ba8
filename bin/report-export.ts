#!/usr/bin/env node
import { runProgram } from '../lib/cli';

runProgram(process.argv.slice(2));
