import { type CountryCode, getCountryCallingCode, Metadata } from 'libphonenumber-js';

/**
 * How numbers are dialled in the country the tenant's numbers are read in: what the
 * calls_with_contacts view needs to normalise a call's external number in SQL (a switch
 * records it as dialled: `020 7946 0000`, `0044 20 ...`, `011 44 ...`). Every
 * contact_phones row of a tenant carries them.
 */
export interface DiallingFacts {
  /** ISO 3166-1 alpha-2 of the country (GB). */
  readonly dialCountry: string | null;
  /** Its country calling code, digits only (44). */
  readonly callingCode: string | null;
  /**
   * The international prefix dialled from it, digits only (GB 00, US 011, AU 0011, RU 810);
   * NULL where the country has several and no default (SG): no call is read as dialled so.
   */
  readonly iddPrefix: string | null;
  /** Its national (trunk) prefix, digits only ('0'; NANP '1'); '' where there is none. */
  readonly trunkPrefix: string | null;
}

/** A tenant with no country (a zone of no country, such as UTC): nothing is known, all NULL. */
export const NO_DIALLING_FACTS: DiallingFacts = {
  dialCountry: null,
  callingCode: null,
  iddPrefix: null,
  trunkPrefix: null,
};

const DIGITS = /^\d+$/;

/**
 * The dialling facts of `country` from libphonenumber-js's metadata (the library that reads
 * the directory's numbers): the default international prefix as libphonenumber's own IDD
 * formatting takes it (a country's default, else its prefix pattern when that is plain
 * digits; `8~10`'s wait for a tone dropped), the national prefix. Undefined country: every
 * fact NULL, so the view reads only the calls' numbers written with `+`.
 */
export function diallingFacts(country: CountryCode | undefined): DiallingFacts {
  if (country === undefined) return NO_DIALLING_FACTS;
  const metadata = new Metadata();
  metadata.selectNumberingPlan(country);
  const plan = metadata.numberingPlan;
  if (plan === undefined) return NO_DIALLING_FACTS;
  // nationalPrefix is in the metadata's numbering plan, not in the library's types.
  const known = plan as typeof plan & { nationalPrefix?: () => string | undefined };
  const candidates = [plan.defaultIDDPrefix(), plan.IDDPrefix()]
    .filter((p): p is string => typeof p === 'string')
    .map((p) => p.replace(/~/g, ''));
  const idd = candidates.find((p) => DIGITS.test(p));
  const trunk = known.nationalPrefix?.() ?? '';
  return {
    dialCountry: country,
    callingCode: getCountryCallingCode(country),
    iddPrefix: idd ?? null,
    trunkPrefix: DIGITS.test(trunk) ? trunk : '',
  };
}
