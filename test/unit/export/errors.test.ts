import { describe, expect, it } from 'vitest';
import {
  EXPORT_ERROR_CODES,
  ExportConfigError,
  ExportError,
  PublishError,
  ReportShapeChangedError,
  RowConversionError,
  RowOutsideWindowError,
  SpillBudgetError,
  type SpillShortage,
  TableCommitFailedError,
  TableInvalidError,
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
      new ReportShapeChangedError({ reportId: 'r', dataset: 'calls', publishedIn: 'summaries', days: ['d'] }),
      new SpillBudgetError(
        { reason: 'budget', spilledBytes: 0, writeBytes: 1, budgetBytes: 1, errno: undefined },
        0,
      ),
      new TableCommitFailedError('x', { attempts: 8, conflicts: 8 }),
      new TableInvalidError('x'),
    ];

    // Assess
    expect(errors.map((e) => e.name)).toEqual([
      'ExportError',
      'ExportConfigError',
      'RowConversionError',
      'RowOutsideWindowError',
      'VerificationError',
      'PublishError',
      'ReportShapeChangedError',
      'SpillBudgetError',
      'TableCommitFailedError',
      'TableInvalidError',
    ]);
  });

  it.each<{ name: string; shortage: SpillShortage; says: string[] }>([
    {
      name: 'the next write would pass the budget',
      shortage: {
        reason: 'budget',
        spilledBytes: 900,
        writeBytes: 300,
        budgetBytes: 1_000,
        errno: undefined,
      },
      says: ['1200 bytes needed', '900 written', 'budget 1000 bytes', 'after 42 rows read'],
    },
    {
      name: 'the disk is full',
      shortage: {
        reason: 'disk',
        spilledBytes: 900,
        writeBytes: 300,
        budgetBytes: undefined,
        errno: 'EDQUOT',
      },
      says: [
        'local disk is full (EDQUOT)',
        '900 bytes',
        '300 more needed',
        'unlimited',
        'after 42 rows read',
      ],
    },
  ])('says what was needed, the budget, the rows read and the fix when $name', ({ shortage, says }) => {
    // Act
    const error = new SpillBudgetError(shortage, 42, { requestId: 'req-1' });

    // Assess
    expect(error).toMatchObject({
      code: 'EXPORT_SPILL_BUDGET_EXCEEDED',
      requestId: 'req-1',
      rowsRead: 42,
      shortage,
    });
    for (const text of [...says, 'more ephemeral storage', 'smaller window'])
      expect(error.message).toContain(text);
  });
});
