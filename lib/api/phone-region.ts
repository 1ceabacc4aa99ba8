import type { CountryCode } from 'libphonenumber-js';

/**
 * The default region of phone numbers, apart from phone.ts (which loads libphonenumber-js)
 * so that an option's spec can show it without loading the library.
 */

/** Default region of phone inputs without a country code. */
export type PhoneRegion = CountryCode;

/** The region a phone number without +country code is read in, unless the caller says otherwise. */
export const DEFAULT_PHONE_REGION: PhoneRegion = 'GB';
