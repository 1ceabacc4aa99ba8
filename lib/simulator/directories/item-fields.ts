import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';
import {
  type Directory,
  type DirectoryFieldName,
  type DirectoryItem,
  type DirectoryItemFields,
  PHONE_FIELD_NAMES,
} from '../../spec';
import { InvalidValueError } from '../http/errors';
import { isGuid } from '../prng';

const PHONE_FIELDS: readonly string[] = PHONE_FIELD_NAMES;
/** Longest accepted field value (the real limits are not documented). */
const MAX_FIELD_LENGTH = 1024;

/** E.164 form of a phone number, or undefined when it cannot be normalised. */
export function normalizePhone(value: string, region: string): string | undefined {
  const parsed = parsePhoneNumberFromString(value, region as CountryCode);
  return parsed?.isPossible() ? parsed.number : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates `{fields: {...}}` against the directory: known field names, string values,
 * phoneX normalised to E.164, crmId a GUID. Each failure is a 400 naming the value.
 */
export function validateItemFields(body: unknown, directory: Directory, region: string): DirectoryItemFields {
  if (!isRecord(body) || !isRecord(body.fields)) throw new InvalidValueError(body);
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body.fields)) {
    if (!directory.fields.includes(name)) throw new InvalidValueError(name);
    if (typeof value !== 'string' || value.length > MAX_FIELD_LENGTH) throw new InvalidValueError(value);
    if (PHONE_FIELDS.includes(name)) {
      const e164 = normalizePhone(value, region);
      if (!e164) throw new InvalidValueError(value);
      fields[name] = e164;
    } else if (name === 'crmId') {
      if (!isGuid(value)) throw new InvalidValueError(value);
      fields[name] = value.toLowerCase();
    } else {
      fields[name] = value;
    }
  }
  return fields as DirectoryItemFields;
}

/** Digits of a search text that looks like a phone number (at least 5 digits and nothing but phone punctuation). */
function phoneSearchForms(text: string, region: string): string[] {
  if (!/^[+\d\s().-]+$/.test(text) || (text.match(/\d/g) ?? []).length < 5) return [];
  const forms = [text.replace(/[^\d+]/g, '')];
  const e164 = normalizePhone(text, region);
  if (e164) forms.push(e164);
  return forms;
}

/**
 * CONTAINS match, case-insensitive, over the fields named in `within` (every field of the
 * item when `within` is empty: the search covers the fields the caller selected). For
 * phone fields the stored E.164 value is compared with the search text as typed, with its
 * digits, and with its E.164 form, so `07700 900123` finds `+447700900123`.
 */
export function itemMatches(
  item: DirectoryItem,
  text: string,
  region: string,
  within: readonly string[] = [],
): boolean {
  const needle = text.toLowerCase();
  const phoneForms = phoneSearchForms(text, region);
  for (const [name, value] of Object.entries(item.fields)) {
    if (typeof value !== 'string') continue;
    if (within.length > 0 && !within.includes(name)) continue;
    if (value.toLowerCase().includes(needle)) return true;
    if (PHONE_FIELDS.includes(name) && phoneForms.some((form) => form.length > 0 && value.includes(form)))
      return true;
  }
  return false;
}

/** The item with only the selected fields (all when none selected). */
export function selectFields(item: DirectoryItem, names: readonly DirectoryFieldName[]): DirectoryItem {
  if (names.length === 0) return item;
  const fields: DirectoryItemFields = {};
  for (const name of names) {
    const value = item.fields[name];
    if (value !== undefined) fields[name] = value;
  }
  return { id: item.id, fields };
}
