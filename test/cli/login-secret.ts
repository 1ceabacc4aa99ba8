import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loginWithAutoApproval } from '../../lib/local/auto-approve-login';
import { LocalFileSecretStore } from '../../lib/stores';
import type { ServiceSecret } from '../../lib/workflow/service-secret';

/** What `writeLoginSecret` needs of a local service started with autoApprove. */
export interface AutoApprovingService {
  authUrl: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** Signs in to the local service (auto-approval) and writes the secret file `login` would write. */
export async function writeLoginSecret(sim: AutoApprovingService, file: string): Promise<void> {
  const app = {
    authUrl: sim.authUrl,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    redirectUri: sim.redirectUri,
  };
  const tokens = await loginWithAutoApproval(app);
  const secret: ServiceSecret = {
    ...app,
    baseUrl: sim.baseUrl,
    refreshToken: tokens.refreshToken as string,
    accessToken: tokens.accessToken,
    accessTokenExpiresAt: tokens.expiresAt,
  };
  await new LocalFileSecretStore(file).put('service', secret);
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
