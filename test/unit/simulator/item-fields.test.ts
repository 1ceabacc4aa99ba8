import { describe, expect, it } from 'vitest';
import {
  itemMatches,
  normalizePhone,
  selectFields,
  validateItemFields,
} from '../../../lib/simulator/directories/item-fields';
import { applyFieldsPatch } from '../../../lib/simulator/directories/json-patch';
import { InvalidValueError } from '../../../lib/simulator/http/errors';
import type { Directory, DirectoryItem } from '../../../lib/spec/types';

const DIRECTORY: Directory = {
  id: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
  name: 'Test',
  description: '',
  fields: ['fullName', 'phone1', 'phone2', 'email', 'crmId'],
};
const ITEM: DirectoryItem = {
  id: '1f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
  fields: { fullName: 'Zoë Müller', phone1: '+447700900123', email: 'zoe@example.com' },
};

describe('normalizePhone', () => {
  it.each([
    ['07700 900123', '+447700900123'],
    ['+44 (0)20 7946 0018', '+442079460018'],
    ['+1 202-555-0143', '+12025550143'],
  ])('returns E.164 when the number is %s', (input, expected) => {
    // Act / Assess
    expect(normalizePhone(input, 'GB')).toBe(expected);
  });

  it.each(['call me', '12', ''])('returns undefined when the text is %j', (input) => {
    // Act / Assess
    expect(normalizePhone(input, 'GB')).toBeUndefined();
  });
});

describe('validateItemFields', () => {
  it('normalises phones and lower-cases crmId when the body is valid', () => {
    // Act
    const fields = validateItemFields(
      { fields: { fullName: 'A', phone1: '07700 900123', crmId: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE' } },
      DIRECTORY,
      'GB',
    );
    // Assess
    expect(fields).toEqual({
      fullName: 'A',
      phone1: '+447700900123',
      crmId: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
    });
  });

  it.each<[string, unknown, string]>([
    ['no fields object', { name: 'x' }, '{"name":"x"}'],
    ['a field the directory lacks', { fields: { jobTitle: 'x' } }, 'jobTitle'],
    ['a number value', { fields: { fullName: 5 } }, '5'],
    ['a phone that cannot be normalised', { fields: { phone2: 'n/a' } }, 'n/a'],
  ])('throws a 400 naming the value when the body has %s', (_case, body, named) => {
    // Act
    const act = () => validateItemFields(body, DIRECTORY, 'GB');
    // Assess
    expect(act).toThrow(InvalidValueError);
    expect(act).toThrow(`The value '${named}' is not valid.`);
  });
});

describe('itemMatches', () => {
  it.each([
    ['müller', true],
    ['ZOË', true],
    ['07700 900123', true],
    ['7700900123', true],
    ['+4477009001', true],
    ['example.org', false],
    ['07700 900999', false],
  ])('returns %s for the search text %j', (text, expected) => {
    // Act / Assess
    expect(itemMatches(ITEM, text as string, 'GB')).toBe(expected);
  });

  it.each<[string, string[], boolean]>([
    ['müller', ['phone1'], false],
    ['müller', ['fullName'], true],
    ['07700 900123', ['email', 'phone1'], true],
    ['07700 900123', ['fullName'], false],
  ])('searches %j only within %j when fields are selected', (text, within, expected) => {
    // Act / Assess
    expect(itemMatches(ITEM, text, 'GB', within)).toBe(expected);
  });
});

describe('selectFields', () => {
  it('keeps only selected members that exist when names are given', () => {
    // Act / Assess
    expect(selectFields(ITEM, ['phone1', 'phone2'])).toEqual({
      id: ITEM.id,
      fields: { phone1: '+447700900123' },
    });
  });
});

describe('applyFieldsPatch', () => {
  it('applies add, replace, remove and test in order', () => {
    // Act
    const patched = applyFieldsPatch(ITEM.fields, [
      { op: 'test', path: '/fields/fullName', value: 'Zoë Müller' },
      { op: 'replace', path: '/fields/fullName', value: 'Zoe Muller' },
      { op: 'add', path: '/fields/phone2', value: '020 7946 0018' },
      { op: 'remove', path: '/fields/email' },
    ]);
    // Assess
    expect(patched).toEqual({ fullName: 'Zoe Muller', phone1: '+447700900123', phone2: '020 7946 0018' });
  });

  it.each<[string, unknown]>([
    ['an empty patch', []],
    ['a path outside fields', [{ op: 'replace', path: '/id', value: 'x' }]],
    ['a failing test', [{ op: 'test', path: '/fields/fullName', value: 'Other' }]],
    ['an unknown op', [{ op: 'copy', path: '/fields/fullName', from: '/fields/email' }]],
    ['replace of a missing member', [{ op: 'replace', path: '/fields/phone4', value: '1' }]],
  ])('throws a 400 when the patch is %s', (_case, patch) => {
    // Act / Assess
    expect(() => applyFieldsPatch(ITEM.fields, patch)).toThrow(InvalidValueError);
  });
});
