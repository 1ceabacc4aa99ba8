import { createHash } from 'node:crypto';
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/simulator/clock';
import { HostedTenants, tenantTimeline } from '../../../lib/simulator/hosted-tenants';
import { directoryItemsOn } from '../../../lib/simulator/index';
import { CallGenerator, emptyTally } from '../../../lib/simulator/reporting/call-generator';
import { ExternalNumbers } from '../../../lib/simulator/reporting/external-numbers';
import { REPORT_TEMPLATES } from '../../../lib/simulator/reporting/report-templates';
import { createSeed } from '../../../lib/simulator/seed';
import { createTenantSeeds } from '../../../lib/simulator/tenant-seeds';
import { startOfLocalDay } from '../../../lib/simulator/time-zone';
import type { ResultRow } from '../../../lib/spec/types';

const DAY_MS = 86_400_000;
/** Monday 23 March 2026 (GMT), nine days across the DST change. */
const START = Date.UTC(2026, 2, 23);
const END = START + 9 * DAY_MS;

/**
 * SHA-256 of the rows of seed 7 (London, 400 a weekday, START to END) as generated before
 * the external numbers came from the directories, `cli` of external calls masked: every
 * other member, the row count and the order must stay as they were.
 */
const MASKED_BEFORE = {
  calls: '86b8e6216fb8fa220e1b13eb323dc448f284f7ce8f71c1e338a0dc6119464dbc',
  details: '8c95b742a5ef31e388f0668c76f59bd92696ed754fd76bf9df2e2f7ddefdff38',
  lost: 'a028e76f620e4f19231b61fe21da6e635413daeb59bb927b94d1d6d9b852a1c7',
};
/** The first 12 hex digits of the SHA-256 of the same rows unmasked, `calls` layout. */
const WHOLE_BEFORE = '667da44d8493';

function generate(generator: CallGenerator, options: { details?: boolean; lost?: boolean } = {}) {
  const filter = options.lost ? REPORT_TEMPLATES.LostCalls.includes : undefined;
  const batches = [
    ...generator.rowBatches(START, END, 1_000_000, emptyTally(), filter, {
      details: options.details ?? false,
    }),
  ];
  return batches.filter((b) => b.length > 0).join(',');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function masked(text: string): string {
  const rows = JSON.parse(`[${text}]`) as ResultRow[];
  return sha256(
    rows
      .map((row) => {
        const { cli, ...rest } = row;
        return JSON.stringify({ ...rest, cli: row.callDir === 3 ? cli : 'EXT' });
      })
      .join('\n'),
  );
}

describe('ExternalNumbers in the generated calls', () => {
  const seed = 7;
  const timeline = tenantTimeline(createSeed(seed), { seed, index: 0, living: true });
  const phones = (day: number) =>
    timeline.directories.flatMap(({ directory }) =>
      (timeline.itemsOn(directory.id, day) ?? []).map((i) =>
        [i.fields.phone1, i.fields.phone2].filter((p): p is string => p !== undefined),
      ),
    );
  const withNumbers = new CallGenerator({
    seed,
    rowsPerDay: 400,
    timeZone: 'Europe/London',
    externalNumbers: new ExternalNumbers(seed, 'GB', phones),
  });
  const without = new CallGenerator({ seed, rowsPerDay: 400, timeZone: 'Europe/London' });

  it('leaves every member but cli of external calls as it was when the numbers come from the directories', () => {
    // Act / Assess
    expect(masked(generate(withNumbers))).toBe(MASKED_BEFORE.calls);
    expect(masked(generate(withNumbers, { details: true }))).toBe(MASKED_BEFORE.details);
    expect(masked(generate(withNumbers, { lost: true }))).toBe(MASKED_BEFORE.lost);
  });

  it('writes the rows exactly as before when no ExternalNumbers is given', () => {
    // Act / Assess
    expect(sha256(generate(without)).slice(0, 12)).toBe(WHOLE_BEFORE);
  });

  it('changes external numbers only, some of them to a national form', () => {
    // Act
    const before = JSON.parse(`[${generate(without)}]`) as ResultRow[];
    const after = JSON.parse(`[${generate(withNumbers)}]`) as ResultRow[];
    // Assess
    const changed = after.filter((row, i) => row.cli !== before[i]?.cli);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((row) => row.callDir !== 3)).toBe(true);
    expect(after.some((row) => row.cli?.startsWith('0'))).toBe(true);
  });
});

describe('calls of the hosted tenants', () => {
  it.each([true, false])(
    'come from a contact of that day for 45-65%% of external calls (living directories: %s)',
    async (living) => {
      // Prepare
      const seeds = createTenantSeeds(20260101, 3);
      const tenants = new HostedTenants(seeds, {
        seed: 20260101,
        rowsPerDay: 1500,
        dataDir: undefined,
        livingDirectories: living,
        clock: new ManualClock(0),
      });
      const day = Date.UTC(2026, 2, 30) / DAY_MS;
      for (const [index, tenant] of tenants.all.entries()) {
        const zone = tenant.seed.tenant.timeZoneId;
        const country = tenant.seed.tenant.countryCode as CountryCode;
        const truth = await directoryItemsOn({
          tenant: index,
          date: '2026-03-30',
          livingDirectories: living,
        });
        const known = new Set(
          truth.flatMap((d) => d.items.flatMap((i) => [i.fields.phone1, i.fields.phone2, i.fields.phone3])),
        );
        // Act
        const text = [
          ...tenant.generator.rowBatches(
            startOfLocalDay(zone, day),
            startOfLocalDay(zone, day + 1),
            1e6,
            emptyTally(),
          ),
        ]
          .filter((b) => b.length > 0)
          .join(',');
        const external = (JSON.parse(`[${text}]`) as ResultRow[]).filter((r) => r.callDir !== 3);
        // Assess: the join a reader makes, normalising the calls' side with the tenant's country.
        const matched = external.filter((r) =>
          known.has(parsePhoneNumberFromString(r.cli ?? '', country)?.number),
        );
        const share = matched.length / external.length;
        expect(share).toBeGreaterThan(0.45);
        expect(share).toBeLessThan(0.65);
        expect(matched.some((r) => !r.cli?.startsWith('+'))).toBe(true);
      }
    },
  );
});
