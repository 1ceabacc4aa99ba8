import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type ServiceClient } from '../../../lib/api';
import { parseContacts } from '../../../lib/cli/commands/directory/contacts';
import { SYNC_ROW_CODES } from '../../../lib/cli/commands/directory/errors';
import type { SyncReport } from '../../../lib/cli/commands/directory/sync';
import { contacts } from './fixtures';
import { type DirectoryHarness, startDirectoryHarness } from './harness';

/** A phone with an extension: E.164 has none, so the row is applied without it, and says so. */

const A = 'b0000000-0000-4000-8000-000000000001';
const B = 'b0000000-0000-4000-8000-000000000002';
const CSV = `crmId,fullName,phone1,phone2\n${A},Ann Lee,01632 960102 ext. 12,07700 900123\n${B},Bob Stone,+44 1632 960103,\n`;

describe('parseContacts with a phone extension', () => {
  it('keeps the row, stores the number in E.164 and warns naming the line, crmId, column and extension', () => {
    // Act
    const sheet = parseContacts(CSV, 'GB');

    // Assess
    expect(sheet.bad).toEqual([]);
    expect(sheet.rows.map((r) => r.fields.phone1)).toEqual(['+441632960102', '+441632960103']);
    expect(sheet.rows[0]).not.toHaveProperty('warnings');
    expect(sheet.warnings).toEqual([
      {
        line: 2,
        crmId: A,
        code: SYNC_ROW_CODES.phoneExtensionDropped,
        reason: expect.stringContaining("phone1 '01632 960102 ext. 12': extension 12 is not stored"),
      },
    ]);
  });

  it.each(['+44 1632 960102 x12', '01632 960102#12', '01632 960102;ext=12'])(
    'warns for the extension written as %s',
    (phone) => {
      const sheet = parseContacts(`crmId,phone1\n${A},${phone}\n`, 'GB');
      expect(sheet.warnings.map((w) => w.reason)).toEqual([
        expect.stringContaining('extension 12 is not stored'),
      ]);
    },
  );

  it('does not warn for numbers without an extension', () => {
    const sheet = parseContacts(`crmId,phone1,phone2\n${A},(020) 7946-0002,+1 201.555.0123\n`, 'GB');
    expect(sheet.warnings).toEqual([]);
  });
});

describe('report-export directory sync with a phone extension', () => {
  let h: DirectoryHarness;
  let api: ServiceClient;

  beforeEach(async () => {
    h = await startDirectoryHarness();
    const secret = JSON.parse(await fs.readFile(h.secretFile, 'utf8')) as {
      service: { accessToken: string };
    };
    api = createClient({ baseUrl: h.sim.baseUrl, accessToken: secret.service.accessToken });
  });

  afterEach(async () => {
    await h?.close();
  });

  it('applies the row, exits 0 and lists the dropped extension with the line in the report and in --json', async () => {
    // Prepare
    const file = path.join(h.dir, 'contacts.csv');
    await fs.writeFile(file, CSV, 'utf8');
    const args = ['sync', '--directory', 'Company contacts', '--csv', file];

    // Act
    const text = await h.directory(args);
    const json = await h.directory([...args, '--json']);

    // Assess
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Warnings (1):');
    expect(text.stdout).toMatch(
      new RegExp(
        `  line 2 \\(crmId ${A}\\): phone1 '01632 960102 ext\\. 12': extension 12 is not stored .*synced as \\+441632960102.* \\[CLI_SYNC_PHONE_EXTENSION_DROPPED\\]`,
      ),
    );
    const report = JSON.parse(json.stdout) as SyncReport;
    expect(json.code).toBe(0);
    expect(report.warnings).toEqual([
      expect.objectContaining({ line: 2, crmId: A, code: 'CLI_SYNC_PHONE_EXTENSION_DROPPED' }),
    ]);
    const [ann] = await api.directories.getItemsByCrmId(contacts.directory.id, A);
    expect(ann?.fields.phone1).toBe('+441632960102');
  });
});
