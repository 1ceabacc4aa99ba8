import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { warnIfSecretFileOpen } from '../../../../lib/cli/aws/secret-access';

let work: string;

beforeEach(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'secret-mode-'));
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('warnIfSecretFileOpen', () => {
  it.each([0o640, 0o604, 0o644, 0o660])(
    'warns naming the file, its mode and chmod 600 when the mode is %o',
    async (mode) => {
      // Prepare
      const file = path.join(work, 'login.json');
      await writeFile(file, '{}');
      await chmod(file, mode);
      const written: string[] = [];

      // Act
      const warned = await warnIfSecretFileOpen(file, (text) => written.push(text));

      // Assess
      expect(warned).toBe(true);
      expect(written).toEqual([
        `warning: the secret file ${file} may be read by other users (mode ${mode.toString(8)}); it holds the login's tokens: chmod 600 ${file}\n`,
      ]);
    },
  );

  it.each([
    ['mode 600', 0o600],
    ['mode 400', 0o400],
  ])('says nothing for %s', async (_name, mode) => {
    // Prepare
    const file = path.join(work, 'login.json');
    await writeFile(file, '{}');
    await chmod(file, mode);
    const written: string[] = [];

    // Act + Assess
    expect(await warnIfSecretFileOpen(file, (text) => written.push(text))).toBe(false);
    expect(written).toEqual([]);
  });

  it('says nothing for a missing file', async () => {
    expect(await warnIfSecretFileOpen(path.join(work, 'none.json'), () => {})).toBe(false);
  });
});
