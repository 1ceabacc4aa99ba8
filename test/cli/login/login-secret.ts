import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AutoApprovingService, writeAutoApprovedLogin } from '../../../lib/local/auto-approve-login';

export type { AutoApprovingService } from '../../../lib/local/auto-approve-login';

/** Signs in to the local service (auto-approval) and writes the secret file `login` would write. */
export async function writeLoginSecret(sim: AutoApprovingService, file: string): Promise<void> {
  await writeAutoApprovedLogin(sim, file);
}

/** A temporary directory with a login secret for the local service in it. */
export interface LoginDir {
  dir: string;
  /** `--secret-file <dir>/login.json --lease-store file://<dir>/leases`: the login, for any command. */
  flags: string[];
  remove(): Promise<void>;
}

/** Makes a temporary directory (name starting with `prefix`) and writes the login secret into it. */
export async function makeLoginDir(sim: AutoApprovingService, prefix: string): Promise<LoginDir> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const secretFile = join(dir, 'login.json');
  await writeLoginSecret(sim, secretFile);
  return {
    dir,
    flags: ['--secret-file', secretFile, '--lease-store', pathToFileURL(join(dir, 'leases')).href],
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
