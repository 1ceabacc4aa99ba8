import { chmod, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkedLocalDir, checkedOutUri } from '../../../../lib/cli/shared/out-location';
import { UsageError } from '../../../../lib/command-line/options';

let work: string;

beforeEach(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'out-location-'));
});

afterEach(async () => {
  await chmod(work, 0o700).catch(() => {});
  await rm(work, { recursive: true, force: true });
});

describe('checkedLocalDir', () => {
  it('creates a missing directory with its parents and returns its absolute path', async () => {
    // Act
    const dir = await checkedLocalDir('--out', path.join(work, 'a', 'lake'), work);

    // Assess
    expect(dir).toBe(path.join(work, 'a', 'lake'));
    expect((await stat(dir)).isDirectory()).toBe(true);
  });

  it('follows a symbolic link to a directory', async () => {
    // Prepare
    await mkdir(path.join(work, 'real'));
    await symlink(path.join(work, 'real'), path.join(work, 'link'));

    // Act + Assess
    await expect(checkedLocalDir('--out', path.join(work, 'link'), work)).resolves.toBe(
      path.join(work, 'link'),
    );
  });

  it('refuses a regular file, naming the flag, the path and what is there', async () => {
    // Prepare
    const file = path.join(work, 'lake.txt');
    await writeFile(file, 'x');

    // Act
    const checked = checkedLocalDir('--out', file, work);

    // Assess
    await expect(checked).rejects.toBeInstanceOf(UsageError);
    await expect(checked).rejects.toThrow(`--out ${file} is not a directory (it is a regular file)`);
  });

  it('refuses a symbolic link to nothing, naming the link and its target', async () => {
    // Prepare
    const link = path.join(work, 'lake');
    await symlink(path.join(work, 'gone'), link);

    // Act + Assess
    await expect(checkedLocalDir('--out', link, work)).rejects.toThrow(
      `--out ${link} is a symbolic link to ${path.join(work, 'gone')}, which does not exist`,
    );
  });

  it('refuses a path below a regular file, naming the file in the way', async () => {
    // Prepare
    const file = path.join(work, 'lake.txt');
    await writeFile(file, 'x');

    // Act + Assess
    await expect(checkedLocalDir('--out', path.join(file, 'sub', 'dir'), work)).rejects.toThrow(
      `--out ${path.join(file, 'sub', 'dir')} cannot be created: ${file} is a regular file, not a directory`,
    );
  });

  it('refuses a path below a dangling symbolic link, naming the link', async () => {
    // Prepare
    const link = path.join(work, 'parent');
    await symlink(path.join(work, 'gone'), link);

    // Act + Assess
    await expect(checkedLocalDir('--out', path.join(link, 'lake'), work)).rejects.toThrow(
      `cannot be created: ${link} is a symbolic link to ${path.join(work, 'gone')}, not a directory`,
    );
  });
});

describe('checkedOutUri', () => {
  it('gives the same message for a dangling symbolic link as --out of run', async () => {
    // Prepare
    const link = path.join(work, 'lake');
    await symlink(path.join(work, 'gone'), link);

    // Act + Assess
    await expect(checkedOutUri('--out', link, work)).rejects.toThrow(`--out ${link} is a symbolic link to`);
  });
});
