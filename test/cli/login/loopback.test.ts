import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '../../../lib/cli/commands/login/self-signed-cert';
import { main, PROGRAM } from '../../../lib/cli/main';
import type { IOStreams } from '../../../lib/cli/shared/io-streams';
import { describeFailure, exitCodeOf } from '../../../lib/command-line/options';
import { runInProcess } from '../../support/cli-in-process';
import { baseEnv, type CliProcess, startCli } from '../../support/cli-process';

describe('createSelfSignedCertificate', () => {
  it.each(['node', 'openssl'] as const)(
    'makes a certificate an https client trusting it accepts for 127.0.0.1 when made by %s',
    async (maker) => {
      // Prepare
      const made = await createSelfSignedCertificate('127.0.0.1', { maker });
      const server = https.createServer({ cert: made.cert, key: made.key }, (_req, res) => res.end('ok'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;

      // Act
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, ca: made.cert, timeout: 5000 }, (res) => {
            let text = '';
            res.on('data', (d: Buffer) => {
              text += d.toString();
            });
            res.on('end', () => resolve(text));
          })
          .on('error', reject);
      }).finally(() => server.close());

      // Assess
      expect(body).toBe('ok');
      expect(made.maker).toBe(maker);
      expect(new X509Certificate(made.cert).subjectAltName).toBe('IP Address:127.0.0.1');
    },
  );
});

/** A run of `main` in this process that a test watches while it runs (runInProcess answers only at its end). */
interface StartedInProcess {
  stderr(): string;
  /** The exit code, as bin/report-export.ts sets it (a thrown error described on stderr). */
  exited: Promise<number>;
  /** Resolves with the match once stderr contains `pattern`; rejects when the run ends first, or after 30 s. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
}

function startInProcess(
  argv: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd: string },
): StartedInProcess {
  let stderr = '';
  let ended = false;
  const io: IOStreams = {
    stdin: Object.assign(Readable.from([]), { isTTY: false }),
    stdout: { write: () => true },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: { ...baseEnv(true), NO_COLOR: '1', ...options.env },
    cwd: options.cwd,
  };
  const exited = main(argv, io)
    .catch((error: unknown) => {
      stderr += describeFailure(PROGRAM, error);
      return exitCodeOf(error);
    })
    .finally(() => {
      ended = true;
    });
  return {
    stderr: () => stderr,
    exited,
    async waitFor(pattern) {
      for (let waited = 0; waited <= 30_000; waited += 20) {
        const match = pattern.exec(stderr);
        if (match !== null) return match;
        if (ended) throw new Error(`ended before ${pattern}: ${stderr}`);
        await sleep(20);
      }
      throw new Error(`still waiting for ${pattern}: ${stderr}`);
    },
  };
}

describe('report-export login (loopback redirect)', () => {
  let cli: CliProcess | undefined;
  /** The working directory of the runs in this process: empty, so no config file is found. */
  let cwd: string;

  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'login-cli-'));
  });

  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  afterEach(async () => {
    if (cli) expect(await cli.stop()).toBe(true);
    cli = undefined;
  });

  const loginArgs = (redirect: string) => [
    'login',
    '--base-url',
    'http://127.0.0.1:9/api',
    '--auth-url',
    'http://127.0.0.1:9',
    '--client-id',
    'app',
    '--redirect-uri',
    redirect,
    '--secret-file',
    '/nonexistent/never-written.json',
    '--timeout',
    '30',
  ];

  it('fails with OAUTH_STATE_MISMATCH and tells the browser so when the redirect carries another state (the built program)', async () => {
    // Prepare
    cli = startCli(loginArgs('http://127.0.0.1:0/callback'), {
      env: { REPORT_EXPORT_CLIENT_SECRET: 'shh' },
      cleanEnv: true,
    });
    const [, origin] = await cli.waitFor(/waiting on (http:\/\/127\.0\.0\.1:\d+)/);

    // Act
    const landing = await fetch(`${origin}/callback?code=stolen&state=forged`, {
      signal: AbortSignal.timeout(10_000),
    });
    const code = await cli.exited;

    // Assess
    expect(landing.status).toBe(400);
    await expect(landing.text()).resolves.toContain('Sign-in failed');
    expect(code).toBe(1);
    expect(cli.stderr()).toContain('[OAUTH_STATE_MISMATCH]');
    expect(cli.stderr()).not.toContain('shh');
  });

  it('answers 404 and keeps waiting when a request reaches another path', async () => {
    // Prepare
    const login = startInProcess(loginArgs('http://127.0.0.1:0/callback'), {
      env: { REPORT_EXPORT_CLIENT_SECRET: 'shh' },
      cwd,
    });
    const [, origin] = await login.waitFor(/waiting on (http:\/\/127\.0\.0\.1:\d+)/);

    // Act
    const stray = await fetch(`${origin}/favicon.ico`, { signal: AbortSignal.timeout(10_000) });
    const outcome = await fetch(`${origin}/callback?error=access_denied&state=x`, {
      signal: AbortSignal.timeout(10_000),
    });

    // Assess
    expect(stray.status).toBe(404);
    expect(outcome.status).toBe(400);
    expect(await login.exited).toBe(1);
  });

  it.each([
    {
      args: ['--redirect-uri', 'http://example.com:8000/'],
      env: { REPORT_EXPORT_CLIENT_SECRET: 's' },
      message: '--redirect-uri must be an http or https loopback URL',
    },
    { args: [], env: {}, message: 'REPORT_EXPORT_CLIENT_SECRET' },
    {
      args: ['--timeout', '0'],
      env: { REPORT_EXPORT_CLIENT_SECRET: 's' },
      message: '--timeout must be an integer from 1 to 3600',
    },
  ])('exits 2 naming the problem when $message is wrong', async ({ args, env, message }) => {
    // Act
    const r = await runInProcess(['login', '--region', 'uk', '--client-id', 'app', ...args], {
      env,
      cleanEnv: true,
      cwd,
    });
    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('exits 2 naming the region flag when no service is named', async () => {
    // Act
    const r = await runInProcess(['login', '--client-id', 'app'], {
      env: { REPORT_EXPORT_CLIENT_SECRET: 's' },
      cleanEnv: true,
      cwd,
    });
    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('login needs --region uk|na|eu|au, or --base-url and --auth-url');
  });
});
