import { describe, expect, it } from 'vitest';
import {
  OBJECT_STORE_ERROR_CODES,
  ObjectStoreError,
  SECRET_STORE_ERROR_CODES,
  SecretStoreError,
} from '../../../lib/stores';

describe('store error codes', () => {
  it.each([
    { name: 'object store', codes: OBJECT_STORE_ERROR_CODES, prefix: /^STORE_[A-Z_]+$/ },
    { name: 'secret store', codes: SECRET_STORE_ERROR_CODES, prefix: /^SECRET_STORE_[A-Z_]+$/ },
  ])('prefixes every $name code with its module when listed', ({ codes, prefix }) => {
    // Assess
    for (const code of Object.values(codes)) expect(code).toMatch(prefix);
  });

  it('names each error class by a literal equal to the class name when constructed', () => {
    // Act
    const errors = [
      new ObjectStoreError(OBJECT_STORE_ERROR_CODES.failed, 'x'),
      new SecretStoreError(SECRET_STORE_ERROR_CODES.failed, 'x', { secretName: 's' }),
    ];

    // Assess
    expect(errors.map((e) => e.name)).toEqual(['ObjectStoreError', 'SecretStoreError']);
  });
});
