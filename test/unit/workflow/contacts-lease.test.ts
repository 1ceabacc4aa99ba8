import { describe, expect, it } from 'vitest';
import { directoryLeaseName } from '../../../lib/export';
import { contactsLease } from '../../../lib/workflow/commit-task';

/**
 * The lease key of a directory's partitions, as the deployed functions take it: a literal,
 * since aws-calls.ts and the IAM simulation build theirs with the same functions. A change
 * here changes what two versions of the committer lock during an upgrade.
 */
describe('the lease of a directory', () => {
  it('is tenant=<t>/contacts/<directory> for a tenant and contacts/<directory> without one', () => {
    expect(contactsLease(directoryLeaseName('d-1'), 'acme')).toBe('tenant=acme/contacts/d-1');
    expect(contactsLease(directoryLeaseName('d-1'))).toBe('contacts/d-1');
  });
});
