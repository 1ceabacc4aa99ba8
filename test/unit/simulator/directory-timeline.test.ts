import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { describe, expect, it } from 'vitest';
import { MAX_LIFETIME_DAYS } from '../../../lib/simulator/directories/directory-timeline';
import { tenantTimeline } from '../../../lib/simulator/hosted-tenants';
import { directoryChanges as changes } from '../../../lib/simulator/index';
import { GUID_PATTERN } from '../../../lib/simulator/prng';
import { createTenantSeeds } from '../../../lib/simulator/tenant-seeds';

const SEED = 20260101;
/** Monday 30 March 2026 as an epoch day. */
const DAY = Date.UTC(2026, 2, 30) / 86_400_000;
const TENANTS = [
  { timeZoneId: 'Europe/London', countryCode: 'GB' },
  { timeZoneId: 'America/New_York', countryCode: 'US' },
  { timeZoneId: 'Australia/Sydney', countryCode: 'AU' },
  { timeZoneId: 'Asia/Tokyo', countryCode: 'JP' },
  { timeZoneId: 'Europe/Berlin', countryCode: 'DE' },
  { timeZoneId: 'Asia/Kolkata', countryCode: 'IN' },
  { timeZoneId: 'America/Sao_Paulo', countryCode: 'BR' },
];
const seeds = createTenantSeeds(SEED, TENANTS);

function timelineOf(index: number, living = true, seed = SEED) {
  const data = seeds[index] ?? seeds[0];
  if (data === undefined) throw new Error('no seed');
  return { data, timeline: tenantTimeline(data, { seed, index, living }) };
}

describe('DirectoryTimeline', () => {
  const { data, timeline } = timelineOf(0);
  const contacts = data.directories[0]?.directory.id as string;

  it('serves the seed items first and unchanged on every day when living', () => {
    // Act
    const days = [DAY - 400, DAY, DAY + 1, DAY + 900].map((d) => timeline.itemsOn(contacts, d) ?? []);
    // Assess
    for (const items of days) expect(items.slice(0, 8)).toEqual(data.directories[0]?.items);
    expect(days.every((items) => items.length > 150)).toBe(true);
  });

  it('serves the seed items alone on every day when not living', () => {
    // Prepare
    const still = timelineOf(0, false).timeline;
    // Act / Assess
    expect(still.itemsOn(contacts, DAY)).toEqual(data.directories[0]?.items);
    expect(still.itemsOn(contacts, DAY + 30)).toEqual(data.directories[0]?.items);
  });

  it('gives a day the same items whatever was computed before, and other items for another seed', () => {
    // Prepare: a fresh timeline asked for the later day first.
    const fresh = timelineOf(0).timeline;
    // Act
    const later = fresh.itemsOn(contacts, DAY + 1);
    const earlier = fresh.itemsOn(contacts, DAY);
    const reseeded = timelineOf(0, true, SEED + 1).timeline.itemsOn(contacts, DAY);
    // Assess
    expect(later).toEqual(timeline.itemsOn(contacts, DAY + 1));
    expect(earlier).toEqual(timeline.itemsOn(contacts, DAY));
    expect(reseeded?.slice(8).map((i) => i.id)).not.toEqual(earlier?.slice(8).map((i) => i.id));
  });

  it('adds, edits and deletes items as days pass, an item living one unbroken span', () => {
    // Act: sixty days in turn.
    const days = Array.from({ length: 61 }, (_, d) => timeline.itemsOn(contacts, DAY + d) ?? []);
    const steps = days.slice(1).map((after, d) => changes(days[d] ?? [], after));
    // Assess
    const total = (key: 'added' | 'deleted' | 'edited') => steps.reduce((n, s) => n + s[key].length, 0);
    expect(total('added')).toBeGreaterThan(20);
    expect(total('deleted')).toBeGreaterThan(20);
    expect(total('edited')).toBeGreaterThan(30);
    // Never back once deleted.
    const gone = new Set<string>();
    for (const step of steps) {
      expect(step.added.filter((id) => gone.has(id))).toEqual([]);
      for (const id of step.deleted) gone.add(id);
    }
  });

  it('deletes every generated item within MAX_LIFETIME_DAYS', () => {
    // Act
    const now = new Set(
      timeline
        .itemsOn(contacts, DAY)
        ?.slice(8)
        .map((i) => i.id),
    );
    const later = timeline.itemsOn(contacts, DAY + MAX_LIFETIME_DAYS)?.slice(8) ?? [];
    // Assess
    expect(later.filter((i) => now.has(i.id))).toEqual([]);
  });

  it.each(TENANTS.map((t, index) => [t.countryCode, index] as const))(
    'writes phones in valid E.164 of the tenant country, GUID crmIds and only the directory fields (%s)',
    (country, index) => {
      // Prepare
      const tenant = timelineOf(index);
      for (const { directory } of tenant.data.directories) {
        // Act
        const generated =
          tenant.timeline.itemsOn(directory.id, DAY)?.slice(directory.name === 'Suppliers' ? 3 : 8) ?? [];
        // Assess
        expect(generated.length).toBeGreaterThan(5);
        for (const item of generated) {
          expect(item.id).toMatch(GUID_PATTERN);
          expect(item.fields.crmId).toMatch(GUID_PATTERN);
          expect(Object.keys(item.fields).every((name) => directory.fields.includes(name))).toBe(true);
          for (const phone of [item.fields.phone1, item.fields.phone2]) {
            if (phone === undefined) continue;
            const parsed = parsePhoneNumberFromString(phone);
            expect(parsed?.number).toBe(phone);
            expect(parsed?.isValid()).toBe(true);
            expect(parsed?.country).toBe(country);
          }
        }
        expect(generated.some((i) => i.fields.phone2 !== undefined)).toBe(true);
        expect(generated.every((i) => i.fields.phone1 !== undefined && i.fields.email?.includes('@'))).toBe(
          true,
        );
      }
    },
  );
});
