import { type CountryCode, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * How a tenant's phone switch writes an external number in a call record: not always as the
 * directory stores it (E.164). A number of the tenant's own country is also written in its
 * national form, with the trunk prefix (`020 7946 0123`, `(02) 5550 1234`), as dialled
 * digits (`02079460123`), and for the North American plan with its trunk prefix 1
 * (`1 202 555 0142`, `12025550142`); a foreign number with the international prefix dialled
 * from the tenant's country (`00 353 20 913 0456`, `011 44 20 7946 0123`). Each form parses
 * back to the E.164 number with the tenant's country.
 */
export function switchForms(e164: string, country: CountryCode): readonly string[] {
  const parsed = parsePhoneNumberFromString(e164);
  if (parsed === undefined) return [e164];
  if (parsed.countryCallingCode !== getCountryCallingCode(country)) {
    return [e164, parsed.format('IDD', { fromCountry: country }) || e164];
  }
  const national = parsed.formatNational();
  const digits = national.replace(/\D/g, '');
  if (parsed.countryCallingCode !== '1') return [e164, national, digits];
  const spaced = parsed.nationalNumber.replace(/^(\d{3})(\d{3})(\d{4})$/, '$1 $2 $3');
  return [e164, national, `1 ${spaced}`, `1${parsed.nationalNumber}`];
}
