import { type CountryCode, getExampleNumber, isSupportedCountry } from 'libphonenumber-js';
import examples from 'libphonenumber-js/mobile/examples';
import type { Prng } from '../prng';

/**
 * Phone numbers of the generated contacts, in E.164, of the tenant's country. Where the
 * regulator reserves numbers for drama (GB: Ofcom's 0113/0161/020 ranges; US: 555-01xx;
 * AU: ACMA's 5550 and 0491 570 ranges) they come from there, so no real subscriber is
 * shown; elsewhere they sit next to libphonenumber's example number. Every number is one
 * libphonenumber calls valid (07700 900xxx, the UK's drama mobiles, are not: none is used).
 */

/** A range: the E.164 prefix and how many digits follow it. */
type Range = readonly [prefix: string, digits: number];

const DRAMA_RANGES: Readonly<Record<string, readonly Range[]>> = {
  GB: [
    ['+442079460', 3],
    ['+441614960', 3],
    ['+441134960', 3],
    ['+441174960', 3],
    ['+441314960', 3],
    ['+441214960', 3],
  ],
  US: ['202', '212', '312', '415', '617', '713', '305', '206'].map((area) => [`+1${area}55501`, 2] as const),
  AU: [
    ['+6125550', 4],
    ['+6135550', 4],
    ['+6175550', 4],
    ['+6185550', 4],
    ['+6149157', 4],
  ],
};

/** Countries whose numbers are drawn from ranges the generated contacts never use (the strangers' calls). */
const STRANGER_RANGES: Readonly<Record<string, Range>> = {
  GB: ['+441184960', 3],
  US: ['+120155501', 2],
  AU: ['+6125551', 4],
};

function fromRange([prefix, digits]: Range, rng: Prng): string {
  return `${prefix}${String(rng.int(10 ** digits)).padStart(digits, '0')}`;
}

/** The country the numbers are of: the tenant's when libphonenumber knows it, else GB. */
export function phoneCountry(countryCode: string): CountryCode {
  const upper = countryCode.toUpperCase();
  return isSupportedCountry(upper) ? upper : 'GB';
}

/** Example numbers by country, their last four digits replaced. */
function nearExample(country: CountryCode, rng: Prng): string {
  const example = getExampleNumber(country, examples)?.number ?? '+442079460000';
  return `${example.slice(0, -4)}${String(rng.int(10_000)).padStart(4, '0')}`;
}

/** A contact's phone number in E.164, of `country` (see {@link phoneCountry}). */
export function contactPhone(country: CountryCode, rng: Prng): string {
  const ranges = DRAMA_RANGES[country];
  return ranges === undefined ? nearExample(country, rng) : fromRange(rng.pick(ranges), rng);
}

/** A number no generated contact has (the caller still checks written items). */
export function strangerPhone(country: CountryCode, rng: Prng): string {
  const range = STRANGER_RANGES[country];
  // Elsewhere: the GB stranger range, an international caller.
  return fromRange(range ?? (STRANGER_RANGES.GB as Range), rng);
}
