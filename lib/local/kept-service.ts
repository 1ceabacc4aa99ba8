import * as path from 'node:path';
import { type SimulatorOptions, startSimulator } from '../simulator';
import { loginWithAutoApproval } from './auto-approve-login';

/** The local service's state (its directories' writes) in the local deployment's state directory. */
export const LOCAL_SERVICE_DIR = 'service';

/**
 * The local service as the local deployment (`npm start`) serves it from its state directory
 * `workDir`: every template (its own inventions included), directories that change as days
 * pass, and their API writes kept in `<workDir>/service` between runs. Anything that serves
 * the same tenants and directories must start it with these.
 */
export function keptServiceOptions(workDir: string): SimulatorOptions {
  return { extraTemplates: true, livingDirectories: true, dataDir: path.join(workDir, LOCAL_SERVICE_DIR) };
}

/** The local service served on a deployment's kept state for one command, signed in as one tenant. */
export interface KeptServiceSession {
  /** The service's API base URL (loopback, an ephemeral port). */
  baseUrl: string;
  /** An access token of the tenant's user, from the OAuth flow (auto-approved): never stored. */
  accessToken: string;
  /** Stops the service; its directories' writes are already in the kept state. */
  close(): Promise<void>;
}

/**
 * Serves the local service on the kept state of `workDir` while no local deployment runs, so
 * a `directory` command changes the directories the next `npm start` reads. Signs in the user
 * of the hosted tenant whose workspace is `workspaceId` (undefined when no hosted tenant has
 * it: the tenant is not one of the local service's). The caller holds the state's lock.
 */
export async function openKeptService(
  workDir: string,
  workspaceId: string,
): Promise<KeptServiceSession | undefined> {
  const sim = await startSimulator({ autoApprove: true, ...keptServiceOptions(workDir) });
  let session: KeptServiceSession | undefined;
  try {
    const tenant = sim.tenants.find((t) => t.workspaceId === workspaceId);
    if (tenant === undefined) return undefined;
    const { authUrl, clientId, clientSecret, redirectUri } = sim;
    const tokens = await loginWithAutoApproval(
      { authUrl, clientId, clientSecret, redirectUri },
      { loginHint: tenant.username },
    );
    session = { baseUrl: sim.baseUrl, accessToken: tokens.accessToken, close: () => sim.close() };
    return session;
  } finally {
    // Stopped here unless handed over (no such tenant, or the sign-in failed).
    if (session === undefined) await sim.close();
  }
}
