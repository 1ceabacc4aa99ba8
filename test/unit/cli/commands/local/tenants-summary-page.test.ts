import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallSummary } from '../../../../../lib/cli/commands/local/call-summary';
import {
  renderTenantsSummaryPage,
  writeSummaryPage,
  writtenTenantSections,
} from '../../../../../lib/cli/commands/local/summary-page';

/** A window of `days` days from 2026-03-02 with 10 calls a day, 5 answered. */
function summary(days: number): CallSummary {
  const dates = Array.from({ length: days }, (_, i) => `2026-03-${String(2 + i).padStart(2, '0')}`);
  return {
    from: dates[0] as string,
    to: dates.at(-1) as string,
    days: dates.map((dt) => ({
      dt,
      calls: 10,
      answered: 5,
      answerRate: 0.5,
      avgTalkSeconds: 60,
      provisional: false,
    })),
    heatmap: [],
    calls: 10 * days,
  };
}

describe('renderTenantsSummaryPage', () => {
  it("draws a section per tenant under its name, with its own charts and zone, when the lake holds several tenants'", () => {
    // Act
    const html = renderTenantsSummaryPage(
      [
        {
          tenant: 'london',
          tenantName: 'Acme <UK>',
          summary: summary(3),
          context: { generatedAt: 'now', timeZone: 'Europe/London' },
        },
        {
          tenant: 'sydney',
          tenantName: 'Initech',
          summary: summary(2),
          context: { generatedAt: 'now', timeZone: 'Australia/Sydney' },
        },
      ],
      'Calls of 2 tenant(s)',
    );

    // Assess: one page, a section each in order, its headings below the tenant's.
    expect(html.match(/<html/g)).toHaveLength(1);
    const sections = html.split('<section data-tenant=').slice(1);
    expect(sections.map((s) => /^"([a-z-]+)"/.exec(s)?.[1])).toEqual(['london', 'sydney']);
    expect(sections[0]).toContain('<h2>Tenant london: Acme &#60;UK&#62;</h2>');
    expect(sections[0]).toContain('in Europe/London');
    expect(sections[1]).toContain('in Australia/Sydney');
    expect(sections[0]?.match(/data-chart="calls-per-day"/g)).toHaveLength(1);
    expect(sections[0]).toContain('<h3>Calls per day</h3>');
    expect(sections[0]).not.toMatch(/<h2>Calls per day/);
  });

  it("keeps the other tenants' sections of the page in the lake, in its order, when one tenant is exported again (--tenant)", async () => {
    // Prepare: the page of a run of three tenants.
    const dir = await mkdtemp(path.join(tmpdir(), 'summary-page-'));
    const of = (tenant: string, days: number, zone: string) => ({
      tenant,
      tenantName: tenant.toUpperCase(),
      summary: summary(days),
      context: { generatedAt: 'first', timeZone: zone },
    });
    try {
      await writeSummaryPage(
        dir,
        renderTenantsSummaryPage(
          [
            of('london', 3, 'Europe/London'),
            of('new-york', 1, 'America/New_York'),
            of('sydney', 2, 'Australia/Sydney'),
          ],
          'Calls of 3 tenant(s)',
        ),
      );

      // Act: new-york exported again, alone, with four days.
      const kept = await writtenTenantSections(dir);
      const html = renderTenantsSummaryPage(
        [of('new-york', 4, 'America/New_York')],
        'Calls of 3 tenant(s)',
        kept,
      );

      // Assess: every tenant still there, in the page's order; new-york's section this run's.
      expect(kept.map((k) => k.tenant)).toEqual(['london', 'new-york', 'sydney']);
      const sections = html.split('<section data-tenant=').slice(1);
      expect(sections.map((s) => /^"([a-z-]+)"/.exec(s)?.[1])).toEqual(['london', 'new-york', 'sydney']);
      expect(sections[0]).toBe(`${kept[0]?.html.slice('<section data-tenant='.length)}\n`);
      expect(sections[1]).toContain('2026-03-05');
      expect(sections[2]).toContain('in Australia/Sydney');
      expect(html.match(/<html/g)).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
