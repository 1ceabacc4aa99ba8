import { isSupportedCountry, parsePhoneNumberWithError } from 'libphonenumber-js';
import { PHONE_FIELD_NAMES } from '../spec';
import { ValidationError } from './errors';
import type { PhoneRegion } from './phone-region';

export { DEFAULT_PHONE_REGION, type PhoneRegion } from './phone-region';

/** True for `phone1`..`phone4`. */
export function isPhoneField(name: string): boolean {
  return (PHONE_FIELD_NAMES as readonly string[]).includes(name);
}

/** Throws a {@link ValidationError} unless `region` is a supported ISO 3166 country code. */
export function requireRegion(region: string): PhoneRegion {
  if (!isSupportedCountry(region))
    throw new ValidationError('defaultRegion', `'${region}' is not a supported region`);
  return region;
}

/** Characters a phone without an extension is written with; anything else may mark one (ext., x, #, ;ext=, ','). */
const PLAIN_PHONE = /^[\d\s().+\-/]*$/;

/**
 * The extension `value` carries (`01632 960102 ext. 12` -> `12`), which E.164 cannot hold;
 * undefined when it has none (or is no phone number).
 */
export function phoneExtension(value: string, region: PhoneRegion): string | undefined {
  if (PLAIN_PHONE.test(value)) return undefined;
  try {
    return parsePhoneNumberWithError(value, region).ext;
  } catch {
    return undefined;
  }
}

/**
 * Normalises a phone number to E.164 (the stored form). A number without `+` is read in
 * `region`. Numbers that cannot be real (wrong length, letters) are rejected before any
 * request. E.164 has no extension: a number written with one (`ext. 12`, `x12`, `#12`) is
 * refused, naming it, unless the caller says to drop it (`extension: 'drop'`; the caller
 * then says so to the user, as `directory sync` does per row).
 */
export function toE164(
  argument: string,
  value: string,
  region: PhoneRegion,
  options: { extension?: 'refuse' | 'drop' } = {},
): string {
  let parsed: ReturnType<typeof parsePhoneNumberWithError>;
  try {
    parsed = parsePhoneNumberWithError(value, region);
    // Possible, not valid: numbering plans change, and test ranges (e.g. Ofcom's 07700 900)
    // are well-formed but "invalid"; the service only asks for E.164.
    if (!parsed.isPossible()) throw new Error('not a possible number');
  } catch (error) {
    throw new ValidationError(
      argument,
      `'${value}' is not a valid phone number (${(error as Error).message})`,
    );
  }
  if (parsed.ext !== undefined && options.extension !== 'drop') {
    throw new ValidationError(
      argument,
      `'${value}' has extension ${parsed.ext}, which a directory phone cannot hold (E.164): give the number without it (${parsed.number}) and keep the extension in another field`,
    );
  }
  return parsed.number;
}

const PHONE_LIKE = /^\+?[\d\s().-]+$/;

/**
 * Prepares a search text. Searching is a CONTAINS match against stored E.164 values, so
 * a text that looks like a phone number is normalised: to E.164 when it is a possible
 * number, else (a fragment such as `7700 900`) stripped of spaces and punctuation.
 * Other texts are sent as given.
 */
export function searchTextFor(text: string, region: PhoneRegion): string {
  const trimmed = text.trim();
  const digits = trimmed.replace(/\D/g, '');
  if (!PHONE_LIKE.test(trimmed) || digits.length < 3) return text;
  try {
    const parsed = parsePhoneNumberWithError(trimmed, region);
    if (parsed.isPossible()) return parsed.number;
  } catch {
    // a fragment: fall through
  }
  return trimmed.startsWith('+') ? `+${digits}` : digits;
}
