import type { CountryCode } from 'libphonenumber-js';
import { isSupportedCountry } from 'libphonenumber-js';
import { ZONE_COUNTRIES_TEXT } from './zone-countries';

/** Zone name -> country, read once from the tz database's table. */
let byZone: Map<string, string> | undefined;

function zoneCountries(): Map<string, string> {
  if (byZone === undefined) {
    byZone = new Map();
    for (const line of ZONE_COUNTRIES_TEXT.split('\n')) {
      const [country, ...zones] = line.split(' ');
      if (country === undefined || country === '') continue;
      for (const zone of zones) byZone.set(zone, country);
    }
  }
  return byZone;
}

/**
 * The country (ISO 3166-1 alpha-2) a tenant's IANA time zone stands for: the default of its
 * phone numbers' country when its registry entry names none (`Europe/London` -> GB,
 * `America/New_York` -> US, the old names too: `US/Eastern` -> US, `Asia/Calcutta` -> IN).
 * From the tz database's zone.tab (see zone-countries.ts), which gives each zone the country
 * that uses it most: a zone that several countries share names one of them (`Europe/Zurich`
 * is CH, not LI), so a registry entry should name its country when it matters. Undefined for
 * a zone of no country (`UTC`, `Etc/GMT+1`), an unknown name, or a country libphonenumber does
 * not know: then only numbers sent with their country code (+44...) are read.
 */
export function countryOfZone(zone: string): CountryCode | undefined {
  const country = zoneCountries().get(zone);
  return country !== undefined && isSupportedCountry(country) ? country : undefined;
}
