import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';
import { PHONE_FIELD_NAMES } from '../../spec';
import { type ContactPhoneRow, type ContactRow, PHONE_MATCHES, type PhoneMatch } from './columns';
import { diallingFacts } from './dialling';

/** A number read: its E.164 form (null when it is none) and how it was found. */
export interface NormalisedPhone {
  readonly e164: string | null;
  readonly match: PhoneMatch;
}

const INVALID: NormalisedPhone = { e164: null, match: PHONE_MATCHES.invalid };

/**
 * A phone number in E.164. A number written with `+` and its country code (spaces, dashes,
 * brackets and `(0)` allowed) is `e164`: it needs no country. Any other is read in `country`
 * (libphonenumber's national rules: the trunk prefix `0`, the country's international prefix
 * such as `00` in GB or `011` in US, a country code written without `+`) and is `national`.
 * Without a country only the first kind is read. A number that cannot be one (too short, an
 * internal extension such as `2001`, `anonymous`) is `invalid`. "Possible", not "valid": the
 * numbering plans change and test ranges (Ofcom's 07700 900) are well-formed, as the client
 * (lib/api toE164) decides. An extension (`ext. 12`) is dropped: E.164 has none, and the
 * number it extends is what a call shows.
 */
export function normalisePhone(asSent: string, country: CountryCode | undefined): NormalisedPhone {
  const text = asSent.trim();
  const international = text.startsWith('+');
  if (!international && country === undefined) return INVALID;
  const parsed = international ? parsePhoneNumberFromString(text) : parsePhoneNumberFromString(text, country);
  if (parsed === undefined || !parsed.isPossible()) return INVALID;
  return { e164: parsed.number, match: international ? PHONE_MATCHES.e164 : PHONE_MATCHES.national };
}

/**
 * The E.164 form of a call's external number as a switch records it (`020 7946 0000`,
 * `0044 20 7946 0000`, `+44 20 7946 0000`, `011 44 ...` in US), read with the tenant's
 * country as the directory's phones are, so both sides of the calls-contacts join compare
 * E.164; undefined when it is no number (an extension, withheld, empty).
 */
export function callNumberE164(
  raw: string | null | undefined,
  country: CountryCode | undefined,
): string | undefined {
  if (raw === null || raw === undefined || raw.trim() === '') return undefined;
  return normalisePhone(raw, country).e164 ?? undefined;
}

/**
 * The `contact_phones` rows of a directory's versions: one per phone field with a value of
 * each version that is not a deletion (a deleted contact has no number to match), with the
 * version's key and is_current, and the dialling facts of `country` (the same on every row:
 * what the calls_with_contacts view normalises a call's number with).
 */
export function contactPhoneRows(
  versions: readonly ContactRow[],
  country: CountryCode | undefined,
): ContactPhoneRow[] {
  const rows: ContactPhoneRow[] = [];
  const dialling = diallingFacts(country);
  for (const version of versions) {
    if (version.isDeleted) continue;
    for (const field of PHONE_FIELD_NAMES) {
      const asSent = version.fields[field];
      if (asSent === undefined || asSent === '') continue;
      const { e164, match } = normalisePhone(asSent, country);
      rows.push({
        tenant: version.tenant,
        directoryId: version.directoryId,
        itemId: version.itemId,
        validFrom: version.validFrom,
        phoneField: field,
        phoneAsSent: asSent,
        phoneE164: e164,
        match,
        isCurrent: version.isCurrent,
        ...dialling,
      });
    }
  }
  return rows;
}
