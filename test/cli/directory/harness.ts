import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../../lib/simulator';
import { runInProcess } from '../../support/cli-in-process';
import { type CliProcess, type CliRun, runCli, startCli } from '../../support/cli-process';
import { writeLoginSecret } from '../login/login-secret';

/**
 * The local service in this process, logged in through its OAuth flow (auto-approval),
 * and a secret file such as `report-export login` writes: what the `directory` commands
 * use, run in this process (`main` on strings) or, where a process is the point (the
 * built program, signals, a kill), as subprocesses.
 */
export interface DirectoryHarness {
  sim: RunningSimulator;
  dir: string;
  secretFile: string;
  /** `report-export directory <args> --secret-file <file>` in this process, working in `dir`, to its end. */
  directory(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<CliRun>;
  /** The same, started as the built program in a process of its own: for tests that interrupt it. */
  startDirectory(args: readonly string[]): CliProcess;
  close(): Promise<void>;
}

/** Variables of the parent that would change what the CLI reads; cleared for every run. */
const CLEAN_ENV: NodeJS.ProcessEnv = {
  REPORT_EXPORT_ACCESS_TOKEN: '',
  REPORT_EXPORT_DIRECTORY: '',
  REPORT_EXPORT_CONFIG: '',
  REPORT_EXPORT_SECRET_ID: '',
  REPORT_EXPORT_BASE_URL: '',
  REPORT_EXPORT_REGION: '',
  REPORT_EXPORT_LEASE_STORE_URI: '',
};

export async function startDirectoryHarness(options: SimulatorOptions = {}): Promise<DirectoryHarness> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'directory-cli-'));
  const sim = await startSimulator({ autoApprove: true, ...options });
  const secretFile = path.join(dir, 'login.json');
  await writeLoginSecret(sim, secretFile);
  return {
    sim,
    dir,
    secretFile,
    directory: (args, env = {}) => runDirectory([...args, '--secret-file', secretFile], env, dir),
    startDirectory: (args) =>
      startCli(['directory', ...args, '--secret-file', secretFile], { env: CLEAN_ENV }),
    close: async () => {
      await sim.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `report-export directory <args>` in this process, with no login unless `args` name one,
 * working in `cwd` (default the temporary directory: these runs name every file absolutely).
 */
export function runDirectory(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  cwd: string = os.tmpdir(),
): Promise<CliRun> {
  return runInProcess(['directory', ...args], { env: { ...CLEAN_ENV, ...env }, cwd });
}

/** `report-export directory <args>` as the built program, in a process of its own (no login). */
export function runDirectoryProcess(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runCli(['directory', ...args], { env: { ...CLEAN_ENV, ...env }, timeoutMs: 30_000 });
}
