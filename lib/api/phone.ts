import { type CountryCode, isSupportedCountry, parsePhoneNumberWithError } from 'libphonenumber-js';
import { PHONE_FIELD_NAMES } from '../spec/types';
import { ValidationError } from './errors';

/** Default region of phone inputs without a country code. */
export type PhoneRegion = CountryCode;

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

/**
 * Normalises a phone number to E.164 (the stored form). A number without `+` is read in
 * `region`. Numbers that cannot be real (wrong length, letters) are rejected before any request.
 */
export function toE164(argument: string, value: string, region: PhoneRegion): string {
  try {
    const parsed = parsePhoneNumberWithError(value, region);
    // Possible, not valid: numbering plans change, and test ranges (e.g. Ofcom's 07700 900)
    // are well-formed but "invalid"; the service only asks for E.164.
    if (!parsed.isPossible()) throw new Error('not a possible number');
    return parsed.number;
  } catch (error) {
    throw new ValidationError(
      argument,
      `'${value}' is not a valid phone number (${(error as Error).message})`,
    );
  }
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
