import { describe, expect, it } from 'vitest';
import {
  EXPORT_ERROR_CODES,
  ExportConfigError,
  ExportError,
  PublishError,
  RowConversionError,
  RowOutsideWindowError,
  VerificationError,
} from '../../../lib/export';

describe('export errors', () => {
  it('prefixes every code with EXPORT_ in UPPER_SNAKE when listed', () => {
    // Assess
    for (const code of Object.values(EXPORT_ERROR_CODES)) expect(code).toMatch(/^EXPORT_[A-Z]+(?:_[A-Z]+)*$/);
  });

  it('names each error class by a literal equal to the class name when constructed', () => {
    // Act
    const errors = [
      new ExportError(EXPORT_ERROR_CODES.aborted, 'x'),
      new ExportConfigError('x'),
      new RowConversionError(EXPORT_ERROR_CODES.rowInvalid, 'x'),
      new RowOutsideWindowError('x'),
      new VerificationError(EXPORT_ERROR_CODES.verifyFailed, 'x'),
      new PublishError(EXPORT_ERROR_CODES.publishFailed, 'x'),
    ];

    // Assess
    expect(errors.map((e) => e.name)).toEqual([
      'ExportError',
      'ExportConfigError',
      'RowConversionError',
      'RowOutsideWindowError',
      'VerificationError',
      'PublishError',
    ]);
  });
});
