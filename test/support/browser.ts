import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium (no Playwright browser download); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Quiet, sandbox-free headless flags: the test runs as root in a container and must not
// reach the network for updates, sync or field trials.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Bound on every browser step, so a stuck page fails the test instead of hanging it. */
export const BROWSER_TIMEOUT_MS = 15_000;

export interface LaunchedBrowser {
  context: BrowserContext;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh temporary profile (--user-data-dir). */
export async function launchChromium(): Promise<LaunchedBrowser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  try {
    // Playwright takes the profile directory here rather than as a --user-data-dir argument.
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: BROWSER_TIMEOUT_MS,
    });
    context.setDefaultTimeout(BROWSER_TIMEOUT_MS);
    context.setDefaultNavigationTimeout(BROWSER_TIMEOUT_MS);
    return {
      context,
      async close() {
        await context.close();
        await rm(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
}
