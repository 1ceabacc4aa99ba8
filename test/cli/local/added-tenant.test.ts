import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantsLogin } from '../../../lib/cli/commands/login/tenant-login';
import type { IOStreams } from '../../../lib/cli/shared/io-streams';
import { type RunningSimulator, startSimulator } from '../../../lib/simulator';
import { runInProcess } from '../../support/cli-in-process';

/** A loopback redirect the login listens on (port 0: any free one), not the service's registered one. */
const LOOPBACK = 'http://127.0.0.1:0/callback';

/**
 * `tenants login <id>` against `sim`, its browser driven as a person's would be: the
 * authorization URL followed (the service approves at once), the code landed on the
 * command's loopback redirect. The service knows only its registered redirect, so the
 * authorize and token requests carry that one instead of the loopback's port-0 address.
 */
async function signIn(
  sim: RunningSimulator,
  id: string,
  cwd: string,
): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const io: IOStreams = {
    stdin: Readable.from([]),
    stdout: { write: () => true },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: { REPORT_EXPORT_CLIENT_SECRET: sim.clientSecret },
    cwd,
  };
  const landed: Promise<Response>[] = [];
  const code = await tenantsLogin(
    [
      id,
      '--base-url',
      sim.baseUrl,
      '--auth-url',
      sim.authUrl,
      '--client-id',
      sim.clientId,
      '--redirect-uri',
      LOOPBACK,
      '--no-open',
    ],
    io,
    {
      onAuthorizationUrl: (url) => {
        const authorize = new URL(url);
        authorize.searchParams.set('redirect_uri', sim.redirectUri);
        const origin = /waiting on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];
        landed.push(
          fetch(authorize, { redirect: 'manual' }).then((approved) => {
            const answer = new URL(approved.headers.get('location') ?? '').searchParams;
            return fetch(`${origin}/callback?${answer}`);
          }),
        );
      },
      fetch: (input, init) => {
        const form = new URLSearchParams(String(init?.body ?? ''));
        if (form.has('redirect_uri')) form.set('redirect_uri', sim.redirectUri);
        return fetch(input, { ...init, body: form });
      },
    },
  ).catch((error: unknown) => {
    stderr += String(error);
    return 1;
  });
  await Promise.all(landed);
  return { code, stderr };
}

/**
 * npm start (the program's `main` in this process, from a directory of its own: the default
 * state ./.report-export and lake ./data-lake) with a tenant a person added to the local
 * registry and signed in against a service of its own.
 */
describe('report-export (npm start) with a tenant added by tenants add and tenants login', () => {
  let sim: RunningSimulator;
  let cwd: string;

  beforeAll(async () => {
    sim = await startSimulator({ autoApprove: true, reportLatencyMs: 50, rowsPerDay: 30 });
    cwd = await mkdtemp(path.join(tmpdir(), 'start-added-tenant-'));
  });

  afterAll(async () => {
    await sim?.close();
    if (cwd !== undefined) await rm(cwd, { recursive: true, force: true });
  });

  it('exports the added tenant with its entry and its stored login, and no flag naming either', async () => {
    // Prepare: the tenant's entry (its zone, workspace and report on its own service), and its login.
    const own = sim.tenants[0];
    const lost = own?.reports.find((r) => r.name === 'Lost calls');
    if (own === undefined || lost === undefined) throw new Error('the local service has no Lost calls');
    const added = await runInProcess(
      [
        'tenants',
        'add',
        'acme',
        '--name',
        'Acme Added',
        '--region',
        'local',
        '--time-zone',
        own.timeZoneId,
        '--workspace',
        own.workspaceId,
        '--reports',
        `${lost.id}=${lost.name}`,
        '--hour',
        '2',
        '--look-back',
        '0',
      ],
      { cwd },
    );
    expect(added.code, added.stderr).toBe(0);
    const login = await signIn(sim, 'acme', cwd);
    expect(login.code, login.stderr).toBe(0);

    // Act: npm start with the scope of the run only (a day, a report, few rows).
    const start = await runInProcess(
      ['--report', 'Lost calls', '--from', '2026-03-02', '--to', '2026-03-02', '--rows-per-day', '20'],
      { cwd },
    );
    const rows = await runInProcess(
      ['query', '--tenant', 'acme', '--json', 'SELECT tenant, count(*) AS n FROM calls GROUP BY tenant'],
      { cwd },
    );

    // Assess: acme exported from its own service (its rows), beside the local service's tenants.
    expect(start.code, start.stderr).toBe(0);
    expect(start.stderr).toContain(`acme (${own.timeZoneId}, its tenants login)`);
    expect(start.stdout).toMatch(
      new RegExp(
        `^Tenant acme \\(Acme Added, ${own.timeZoneId}\\): exported [1-9]\\d* rows of 1 report`,
        'm',
      ),
    );
    expect(start.stdout).toMatch(/^Tenant london /m);
    expect(rows.code, rows.stderr).toBe(0);
    expect(JSON.parse(rows.stdout)).toEqual([{ tenant: 'acme', n: expect.any(Number) }]);
    expect(JSON.parse(rows.stdout)[0].n).toBeGreaterThan(0);
  }, 420_000);
});
