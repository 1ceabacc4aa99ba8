import * as fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type WorkflowHarness } from './harness';

/**
 * The night's digest, locally: the stack's Digest function (its bundle, with its template
 * environment) invoked as its schedule would, after a night of three tenants of which one's
 * login was revoked, over the lake those nights wrote (S3 on fauxqs).
 */

const NOW = new Date('2026-11-19T02:00:00Z');

let h: WorkflowHarness;
beforeAll(async () => {
  h = await startHarness({ tenancy: 'multi', simulator: { rowsPerDay: 20 } });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('the Digest function, locally', () => {
  it('publishes one notice naming the tenant whose night failed, after the immediate notice of its revoked login', async () => {
    // Prepare: every tenant's night, one of them with its grants revoked
    const [revoked, ...others] = h.deployment.tenants;
    if (revoked === undefined) throw new Error('no tenant');
    h.deployment.sim.revokeTenantGrants(revoked.serviceTenantId);
    const results = await Promise.all(
      h.deployment.tenants.map((t) => h.deployment.run(h.deployment.nightlyInput(t.id, NOW))),
    );
    expect(results.map((r) => r.notifications.length)).toEqual([1, ...others.map(() => 0)]);

    // Act: the schedule's invocation a minute after the nights (which started just now)
    const out = await h.deployment.digest(new Date(Date.now() + 60_000).toISOString());

    // Assess
    expect(out).toMatchObject({ tenants: 3, failed: 1, recovered: 0 });
    const lines = (await fs.readFile(h.deployment.noticesFile, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1);
    const notice = JSON.parse(lines[0] as string) as { subject: string; body: string };
    expect(notice.subject).toMatch(/^ReportExport: 1 failed, 0 held, \d stale, 0 recovered \(/);
    expect(notice.body).toContain(`- ${revoked.id} (`);
    expect(notice.body).toMatch(new RegExp(`- ${revoked.id} \\([^)]*\\): LoginRequiredError`));
    for (const t of others) expect(notice.body).not.toMatch(new RegExp(`Failed[^]*- ${t.id} \\([^]*Held`));
  }, 300_000);
});
