import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openLake } from '../../lib/cli/shared/lake-database';
import { type RunningSimulator, startSimulator } from '../../lib/simulator';
import { BROWSER_TIMEOUT_MS, CHROMIUM_PATH } from '../support/browser';
import { type CliProcess, runCli, startCli } from '../support/cli-process';

/**
 * `login` end to end: the CLI listens on the registered loopback redirect, headless
 * Chromium signs in on the local service's login page, the CLI exchanges the code and
 * writes the secret; then `run` exports with that secret and DuckDB counts the rows.
 */
describe('report-export login (headless Chromium, local service)', () => {
  let sim: RunningSimulator;
  let browser: Browser;
  let dir: string;
  let cli: CliProcess | undefined;

  beforeAll(async () => {
    sim = await startSimulator({ reportLatencyMs: 100, rowsPerDay: 200 });
    // The https redirect's certificate is self-signed: this browser must accept it.
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      timeout: BROWSER_TIMEOUT_MS,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--ignore-certificate-errors'],
    });
    dir = await mkdtemp(join(tmpdir(), 'login-cli-'));
  });

  afterAll(async () => {
    await browser?.close();
    await sim?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    if (cli) expect(await cli.stop()).toBe(true);
    cli = undefined;
  });

  async function signIn(page: Page, url: string): Promise<void> {
    await page.goto(url);
    await page.fill('#username', sim.username);
    await page.fill('#password', sim.password);
    await Promise.all([page.waitForURL('**127.0.0.1:8000/**'), page.click('#approve')]);
  }

  /** `login` against the local service, writing `secretFile`. */
  const loginArgs = (secretFile: string, timeoutSeconds: string, ...more: string[]) => [
    'login',
    '--base-url',
    sim.baseUrl,
    '--auth-url',
    sim.authUrl,
    '--client-id',
    sim.clientId,
    '--secret-file',
    secretFile,
    '--timeout',
    timeoutSeconds,
    ...more,
  ];
  /** The client secret comes from the environment, as in production. */
  const withClientSecret = () => ({
    env: { REPORT_EXPORT_CLIENT_SECRET: sim.clientSecret },
    cleanEnv: true,
  });

  const secretValues = (s: Record<string, unknown>) =>
    [s.clientSecret, s.refreshToken, s.accessToken].filter((v): v is string => typeof v === 'string');

  it.each([
    { scheme: 'http', redirect: 'http://127.0.0.1:8000/' },
    { scheme: 'https', redirect: 'https://127.0.0.1:8000/' },
  ])(
    'stores a secret that works when the user signs in through the $scheme loopback redirect',
    async ({ scheme, redirect }) => {
      // Prepare
      const secretFile = join(dir, `${scheme}-login.json`);
      cli = startCli(loginArgs(secretFile, '60', '--redirect-uri', redirect, '--json'), withClientSecret());
      const [url] = await cli.waitFor(/http:\/\/127\.0\.0\.1:\d+\/connect\/authorize\?\S+/);
      const page = await browser.newPage();

      // Act
      await signIn(page, url);
      const code = await cli.exited;

      // Assess
      await expect(page.locator('#outcome').textContent()).resolves.toBe('Signed in');
      await page.close();
      expect(code).toBe(0);
      const authorize = new URL(url);
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorize.searchParams.get('redirect_uri')).toBe(redirect);
      const line = JSON.parse(cli.stdout()) as Record<string, unknown>;
      expect(line).toMatchObject({ secret: secretFile, clientId: sim.clientId, baseUrl: sim.baseUrl });
      const stored = JSON.parse(await readFile(secretFile, 'utf8')) as { service: Record<string, unknown> };
      expect(stored.service).toMatchObject({
        authUrl: sim.authUrl,
        baseUrl: sim.baseUrl,
        clientId: sim.clientId,
        clientSecret: sim.clientSecret,
        redirectUri: redirect,
      });
      expect(stored.service.refreshToken).toEqual(expect.any(String));
      expect((await stat(secretFile)).mode & 0o777).toBe(0o600);
      for (const value of secretValues(stored.service)) {
        expect(cli.stdout()).not.toContain(value);
        expect(cli.stderr()).not.toContain(value);
      }
    },
  );

  it('exports with the stored secret when run is given the secret file', async () => {
    // Prepare
    const secretFile = join(dir, 'http-login.json');
    const out = join(dir, 'lake');

    // Act
    const result = await runCli(
      [
        'run',
        '--date',
        '2026-03-10',
        '--secret-file',
        secretFile,
        '--lease-store',
        pathToFileURL(join(dir, 'leases')).href,
        '--time-zone',
        sim.timeZoneId,
        '--out',
        out,
        '--wait-ms',
        '50',
        '--json',
      ],
      { cleanEnv: true },
    );

    // Assess
    expect(result.code, result.stderr).toBe(0);
    const line = JSON.parse(result.stdout) as { status: string; rows: number; jobs: number };
    expect(line.status).toBe('SUCCEEDED');
    expect(line.jobs).toBe(sim.reportIds.length);
    // The calls table's current snapshot, as query reads it.
    const lake = await openLake(out);
    const [{ n }] = (await lake.query('SELECT count(*)::INTEGER AS n FROM calls')).rows as [{ n: number }];
    lake.close();
    expect(line.rows).toBeGreaterThan(0);
    expect(n).toBe(line.rows);
    const stored = JSON.parse(await readFile(secretFile, 'utf8')) as { service: Record<string, unknown> };
    for (const value of secretValues(stored.service))
      expect(result.stdout + result.stderr).not.toContain(value);
  });

  it('exits 1 naming --timeout when nobody signs in', async () => {
    // Act
    const result = await runCli(loginArgs(join(dir, 'never.json'), '1'), withClientSecret());

    // Assess
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[CLI_LOGIN_TIMEOUT]');
    expect(result.stderr).toContain('--timeout');
    await expect(stat(join(dir, 'never.json'))).rejects.toThrow();
  });
});
