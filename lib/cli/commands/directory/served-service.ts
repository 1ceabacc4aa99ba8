import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { LocalFileSecretStore } from '../../../stores';
import type { ServiceSecret } from '../../../workflow';
import { acquireOutDirLock, type OutDirLock, OutDirLockedError } from '../../shared/out-dir-lock';

/**
 * `directory --tenant <id>` on the local deployment while no `npm start` runs: the tenant's
 * stored login names the local service on a port that is gone, so the command serves the
 * local service itself, on the deployment's kept state (`<dir>/service`, as `npm start`
 * serves it), for as long as it runs. Its writes land in that state, and the next `npm start`
 * syncs them into the lake. While an `npm start` runs, its service answers and is used.
 */

/** What a command serves for itself, stopped when the command ends. */
export class ServedServices {
  readonly #closers: (() => Promise<void>)[] = [];

  add(close: () => Promise<void>): void {
    this.#closers.push(close);
  }

  /**
   * Stops every service served, the last first. A failure to stop one does not undo what the
   * command did (its writes are in the kept state): it is returned, to be warned of.
   */
  async close(): Promise<unknown[]> {
    const failures: unknown[] = [];
    for (let close = this.#closers.pop(); close !== undefined; close = this.#closers.pop()) {
      await close().catch((error: unknown) => failures.push(error));
    }
    return failures;
  }
}

/** How long the stored login's service may take to answer before it is taken as running. */
const PROBE_TIMEOUT_MS = 2_000;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The base URL of a stored login when it names a loopback service, else undefined. */
async function loopbackLogin(loginFile: string): Promise<string | undefined> {
  let secret: ServiceSecret | undefined;
  try {
    secret = await new LocalFileSecretStore(loginFile).get<ServiceSecret>('service');
  } catch {
    return undefined; // No login, or not one: the ordinary path names what is wrong.
  }
  if (typeof secret?.baseUrl !== 'string') return undefined;
  try {
    return LOOPBACK_HOSTS.has(new URL(secret.baseUrl).host.replace(/:\d+$/, '')) ? secret.baseUrl : undefined;
  } catch {
    return undefined;
  }
}

/** True when nothing listens at `url` (the connection is refused); an answer, or silence, is a service. */
async function refused(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await response.body?.cancel();
    return false;
  } catch (error) {
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    return code === 'ECONNREFUSED';
  }
}

interface ServeInput {
  /** The local deployment's state directory (`--dir`). */
  stateDir: string;
  /** The tenant's stored login (`<dir>/secrets/<id>.json`). */
  loginFile: string;
  /** The tenant's workspace (its registry entry): the hosted tenant to sign in as. */
  workspaceId: string;
  services: ServedServices;
  /** Where the command says it serves the service. */
  log: (line: string) => void;
}

/**
 * The local service served on the kept state, signed in as the tenant, when the tenant's
 * login names a loopback service, the state directory keeps the local service's state and no
 * other process holds it; undefined otherwise (the ordinary login is used: an npm start that
 * holds the state serves it). Refused, naming the holder, when another process holds the
 * state and nothing answers at the login's URL (another directory command, an npm start
 * starting).
 */
export async function serveStoppedLocalService(
  input: ServeInput,
): Promise<{ baseUrl: string; accessToken: string } | undefined> {
  const { LOCAL_SERVICE_DIR, openKeptService } = await import('../../../local/kept-service');
  const serviceDir = path.join(input.stateDir, LOCAL_SERVICE_DIR);
  if (
    !(await fs.stat(serviceDir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    return undefined;
  const url = await loopbackLogin(input.loginFile);
  if (url === undefined) return undefined;
  // The kept state's lock decides, not the port: a running npm start holds it (and its
  // service answers at the login's URL); nothing is sent to whatever else holds that port now.
  let lock: OutDirLock;
  try {
    lock = await acquireOutDirLock(serviceDir);
  } catch (error) {
    if (error instanceof OutDirLockedError && !(await refused(url))) return undefined;
    throw error;
  }
  let session: Awaited<ReturnType<typeof openKeptService>>;
  try {
    session = await openKeptService(input.stateDir, input.workspaceId);
  } catch (error) {
    await lock.release();
    throw error;
  }
  if (session === undefined) {
    await lock.release();
    return undefined;
  }
  const { close } = session;
  input.services.add(async () => {
    try {
      await close();
    } finally {
      await lock.release();
    }
  });
  input.log(
    `the local service is not running: serving its kept state ${serviceDir} for this command, as npm start does`,
  );
  return { baseUrl: session.baseUrl, accessToken: session.accessToken };
}
