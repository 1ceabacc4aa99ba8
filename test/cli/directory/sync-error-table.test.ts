import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  LoginRequiredError,
  RateLimitedError,
  ResponseTooLargeError,
  ServerError,
  UnsupportedContentEncodingError,
} from '../../../lib/api';
import { parseContacts } from '../../../lib/cli/commands/directory/contacts';
import { type SyncDirectoryPort, syncDirectory } from '../../../lib/cli/commands/directory/sync';
import type { DirectoryItem, DirectoryItemFields } from '../../../lib/spec/types';
import { TASK_ERROR_NAMES, WORKFLOW_ERROR_CODES } from '../../../lib/workflow';

// The sync's two lists (stop at once; look before reporting a create failed) come from the
// client's error table and the workflow's: these cases pin what each class does.

const CSV = [
  'crmId,fullName',
  'b0000000-0000-4000-8000-000000000001,Ann Lee',
  'b0000000-0000-4000-8000-000000000002,Bob Stone',
].join('\r\n');

/** A directory in memory whose creates store the item, then fail with `fail()` (once per row). */
function directory(fail: () => Error): SyncDirectoryPort & { lookups: number; items: DirectoryItem[] } {
  const items: DirectoryItem[] = [];
  const port = {
    lookups: 0,
    items,
    getItemsByCrmId: async (_directoryId: string, crmId: string) => {
      port.lookups++;
      return items.filter((i) => i.fields.crmId === crmId);
    },
    createItem: async (_directoryId: string, fields: DirectoryItemFields) => {
      items.push({ id: `i${items.length}`, fields } as DirectoryItem);
      throw fail();
    },
    replaceItem: async () => {
      throw new Error('not called');
    },
    deleteItem: async () => {
      throw new Error('not called');
    },
    searchItems: async () => items,
  };
  return port as unknown as SyncDirectoryPort & { lookups: number; items: DirectoryItem[] };
}

const named = (name: string) => Object.assign(new Error(`a ${name}`), { name });
const sheet = parseContacts(CSV, 'GB');

describe('syncDirectory and the error tables', () => {
  it.each([
    { kind: 'a lost connection', fail: () => new ConnectionError('reset') },
    { kind: 'a 5xx', fail: () => new ServerError('boom') },
    { kind: 'an answer too large', fail: () => new ResponseTooLargeError(1024) },
    {
      kind: 'an answer in an unknown coding',
      fail: () => new UnsupportedContentEncodingError('zstd', ['gzip']),
    },
  ])('counts a create that reached the service as created when it failed with $kind', async ({ fail }) => {
    // Prepare
    const port = directory(fail);

    // Act
    const report = await syncDirectory(port, { directoryId: 'd', sheet, concurrency: 1 });

    // Assess
    expect({ created: report.created, failed: report.failed }).toEqual({ created: 2, failed: 0 });
    expect(report.changes.map((c) => c.itemId)).toEqual(['i0', 'i1']);
  });

  it('reports a create refused with a 429 as failed without looking for it', async () => {
    // Prepare
    const port = directory(() => new RateLimitedError('slow down'));

    // Act
    const report = await syncDirectory(port, { directoryId: 'd', sheet, concurrency: 1 });

    // Assess: one lookup per row before its create, none after.
    expect({ created: report.created, failed: report.failed }).toEqual({ created: 0, failed: 2 });
    expect(port.lookups).toBe(2);
  });

  it.each([
    { kind: 'the login is gone', fail: () => new LoginRequiredError('revoked', 400) },
    {
      kind: "the workflow's store failed",
      fail: () => named(TASK_ERROR_NAMES[WORKFLOW_ERROR_CODES.storeFailed]),
    },
    {
      kind: "the workflow's lease is held",
      fail: () => named(TASK_ERROR_NAMES[WORKFLOW_ERROR_CODES.leaseBusy]),
    },
    { kind: 'the caller aborted', fail: () => named('AbortError') },
  ])('stops at the first row when $kind', async ({ fail }) => {
    // Prepare
    const port = directory(fail);

    // Act
    const report = await syncDirectory(port, { directoryId: 'd', sheet, concurrency: 1 });

    // Assess
    expect(report.stopped).toBeDefined();
    expect(port.items).toHaveLength(1);
    expect(report.failed).toBe(0);
  });
});
