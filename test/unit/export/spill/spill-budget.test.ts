import { describe, expect, it } from 'vitest';
import { SpillBudget, SpillShortageError } from '../../../../lib/export/spill/spill-budget';

function errno(code: string): Error {
  return Object.assign(new Error(`${code}: injected`), { code });
}

describe('SpillBudget', () => {
  it('accepts writes up to the budget exactly and refuses the byte past it when limited', () => {
    // Prepare
    const budget = new SpillBudget(100);
    budget.reserve(60);
    budget.reserve(40);

    // Act
    const act = () => budget.reserve(1);

    // Assess
    expect(act).toThrow(SpillShortageError);
    expect(act).toThrow(
      expect.objectContaining({
        shortage: { reason: 'budget', spilledBytes: 100, writeBytes: 1, budgetBytes: 100, errno: undefined },
      }),
    );
    expect(budget.used).toBe(100);
  });

  it('counts every write and refuses none when unlimited', () => {
    // Prepare
    const budget = new SpillBudget();

    // Act
    for (let i = 0; i < 3; i++) budget.reserve(Number.MAX_SAFE_INTEGER / 4);

    // Assess
    expect(budget.used).toBe((3 * Number.MAX_SAFE_INTEGER) / 4);
  });

  it.each(['ENOSPC', 'EDQUOT'])(
    'turns a failed write into a disk shortage when the file system says %s',
    (code) => {
      // Prepare
      const budget = new SpillBudget(1_000);
      budget.reserve(300);
      budget.reserve(200);
      const cause = errno(code);

      // Act
      const error = budget.refused(cause, 200);

      // Assess
      expect(error).toBeInstanceOf(SpillShortageError);
      expect(error).toMatchObject({
        shortage: { reason: 'disk', spilledBytes: 300, writeBytes: 200, budgetBytes: 1_000, errno: code },
        cause,
      });
    },
  );

  it.each(['EIO', 'EACCES', undefined])('passes the error on unchanged when its code is %s', (code) => {
    // Prepare
    const budget = new SpillBudget();
    const cause = code === undefined ? new Error('boom') : errno(code);

    // Act
    const error = budget.refused(cause, 0);

    // Assess
    expect(error).toBe(cause);
  });
});
