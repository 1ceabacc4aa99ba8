import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalDirectoryStore, listAll, readObject } from '../../../lib/stores';

/**
 * A concurrent deleteMany prunes the directories it empties; it may do so in the instant
 * between a write's mkdir and its file. The instant is made certain here: the mocked mkdir
 * removes the directory it made right after making it, `prunes` times (as that delete would).
 */
const pruning = vi.hoisted(() => ({ prunes: 0 }));
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  const mkdir = async (dir: string, options?: { recursive?: boolean }) => {
    const made = await fs.mkdir(dir, options);
    if (pruning.prunes > 0) {
      pruning.prunes--;
      await fs.rmdir(dir);
    }
    return made;
  };
  return { ...fs, mkdir, default: { ...fs, mkdir } };
});

describe('LocalDirectoryStore writes into a directory a concurrent delete prunes', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'local-store-pruned-'));
    store = new LocalDirectoryStore(root);
    await store.put('src.txt', 'source');
  });
  afterEach(async () => {
    pruning.prunes = 0;
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    ['put', (s: LocalDirectoryStore) => s.put('a/b/key', 'source')],
    ['putIfAbsent', (s: LocalDirectoryStore) => s.putIfAbsent('a/b/key', 'source')],
    ['copy', (s: LocalDirectoryStore) => s.copy('src.txt', 'a/b/key')],
  ])('%s makes the directory again when it is pruned twice after its mkdir', async (_, write) => {
    // Prepare
    pruning.prunes = 2;

    // Act
    await write(store);

    // Assess
    expect(pruning.prunes).toBe(0);
    expect(new TextDecoder().decode(await readObject(store, 'a/b/key'))).toBe('source');
    expect((await listAll(store, 'a/')).map((o) => o.key)).toEqual(['a/b/key']);
  });

  it('still fails a copy of a key that is not there as not found', async () => {
    await expect(store.copy('missing.txt', 'a/b/key')).rejects.toMatchObject({ code: 'STORE_NOT_FOUND' });
  });
});
