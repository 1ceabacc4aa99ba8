import { describe, expect, it } from 'vitest';
import { CONTACTS_CHOICES } from '../../../../lib/cli/shared/execution-input-spec';
import { CONTACTS_MODES } from '../../../../lib/workflow';

describe('--contacts', () => {
  it("offers exactly the execution input's contacts modes", () => {
    expect([...CONTACTS_CHOICES]).toEqual([...CONTACTS_MODES]);
  });
});
