import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../support/cli-in-process';

/**
 * Every command writes only to the streams it is given (lib/cli/shared/io-streams.ts), never
 * to the process's own: run in-process on string streams, each command line leaves the real
 * stdout and stderr untouched, and says what it has to say on the streams it was given.
 */
describe('commands and the streams they are given', () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'io-streams-'));
    await mkdir(path.join(work, 'lake'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([
    { argv: ['query', '--dir', 'lake', '--json', 'SELECT 42 AS answer'], stream: 'stdout' },
    { argv: ['runs', '--dir', 'lake'], stream: 'stderr' },
    { argv: ['config', 'show', '--json'], stream: 'stdout' },
    { argv: ['workspaces', 'list', '--secret-file', 'no-login.json'], stream: 'stderr' },
    { argv: ['reports', 'list', '--secret-file', 'no-login.json'], stream: 'stderr' },
    {
      argv: ['directory', 'search', '--directory', 'D', '--text', 'a', '--secret-file', 'no-login.json'],
      stream: 'stderr',
    },
    {
      argv: ['run', '--date', '2026-11-20', '--time-zone', 'Europe/London', '--secret-file', 'no-login.json'],
      stream: 'stderr',
    },
    { argv: ['start', '--date', '2026-11-20'], stream: 'stderr' },
    { argv: ['backfill', '--from', '2026-11-01'], stream: 'stderr' },
    { argv: ['login', '--client-id', 'app'], stream: 'stderr' },
    { argv: ['workflow'], stream: 'stderr' },
    { argv: ['--rows-per-day', 'many'], stream: 'stderr' },
    { argv: ['help', 'directory', 'sync'], stream: 'stdout' },
    { argv: ['completion', 'fish'], stream: 'stdout' },
  ])("$argv writes to its own $stream and never to the process's", async ({ argv, stream }) => {
    // Prepare: the process's own streams, watched.
    const real = [vi.spyOn(process.stdout, 'write'), vi.spyOn(process.stderr, 'write')];

    // Act
    const run = await runInProcess(argv, { cwd: work, cleanEnv: true });

    // Assess
    expect(real.map((spy) => spy.mock.calls.map((c) => String(c[0])))).toEqual([[], []]);
    expect(run[stream as 'stdout' | 'stderr'].length, `${run.stdout}${run.stderr}`).toBeGreaterThan(0);
  });
});
