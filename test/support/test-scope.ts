import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type CliProcess, type CliProcessOptions, startCli } from './cli-process';

/**
 * A temporary directory for the tests of a `describe` (or file): made before them, removed
 * after them. Call where hooks may be registered; read it inside a test.
 */
export function useTempDir(prefix: string): () => string {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (dir === undefined) throw new Error('useTempDir: read the directory inside a test');
    return dir;
  };
}

/**
 * The CLI processes a test starts, each in a group of its own: whatever is left of them
 * (the program and every process it started) is killed after the test.
 */
export function useCliProcesses(): {
  start(args: readonly string[], options?: CliProcessOptions): CliProcess;
} {
  const started: CliProcess[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((cli) => cli.stop()));
  });
  return {
    start(args, options) {
      const cli = startCli(args, options);
      started.push(cli);
      return cli;
    },
  };
}
