import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CatalogCommit,
  CatalogRequestError,
  CommitConflictError,
  CommitStateUnknownError,
  fileCatalogOf,
  LocalDirectoryStore,
  listAll,
  OBJECT_STORE_ERROR_CODES,
  type ObjectStore,
  objectUri,
  readObject,
} from '../../../lib/stores';
import { overriding } from '../../support/overriding-store';

const CALLS = { namespace: 'lake', name: 'calls' };

describe('FileCatalog', () => {
  let root: string;
  let store: LocalDirectoryStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'file-catalog-'));
    store = new LocalDirectoryStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const location = () => `${store.rootUri}/exports/tables/calls`;
  const change = (metadata: string): CatalogCommit => ({ metadata, location: location(), columns: [] });
  const text = async (key: string) => Buffer.from(await readObject(store, key)).toString('utf8');
  const metadataFiles = async () =>
    (await listAll(store, 'exports/tables/calls/metadata/')).map((o) => o.key.split('/').pop());

  /** A table at version `n`, each version's metadata `m<version>`. */
  async function tableAt(n: number, on: ObjectStore = store) {
    const catalog = fileCatalogOf({ store: on, prefix: 'exports' });
    let base = await catalog.commit(CALLS, undefined, change('m1'));
    for (let v = 2; v <= n; v++) base = await catalog.commit(CALLS, base, change(`m${v}`));
    return { catalog, base };
  }

  it('finds no table when nothing was committed', async () => {
    // Act
    const loaded = await fileCatalogOf({ store, prefix: 'exports' }).load(CALLS);

    // Assess
    expect(loaded).toBeUndefined();
  });

  it('creates v1.metadata.json and the hint when a table is created', async () => {
    // Prepare
    const catalog = fileCatalogOf({ store, prefix: 'exports' });

    // Act
    const created = await catalog.commit(CALLS, undefined, change('{"v":1}'));

    // Assess
    const uri = `${location()}/metadata/v1.metadata.json`;
    expect(created).toEqual({ metadataLocation: uri, version: '1' });
    expect(uri.startsWith('file:///')).toBe(true);
    expect(await catalog.load(CALLS)).toEqual(created);
    expect(await catalog.readMetadata(uri)).toBe('{"v":1}');
    expect(await text('exports/tables/calls/metadata/version-hint.text')).toBe('1');
  });

  it('moves the table to v<N+1> when a commit names the current version', async () => {
    // Prepare
    const { catalog, base } = await tableAt(2);

    // Act
    const next = await catalog.commit(CALLS, base, change('m3'));

    // Assess
    expect(next.version).toBe('3');
    expect(await catalog.load(CALLS)).toEqual(next);
    expect(await catalog.readMetadata(next.metadataLocation)).toBe('m3');
    expect(await text('exports/tables/calls/metadata/version-hint.text')).toBe('3');
  });

  it('refuses a commit with CommitConflictError and changes nothing when its base is stale', async () => {
    // Prepare
    const { catalog, base } = await tableAt(1);
    const winner = await catalog.commit(CALLS, base, change('winner'));

    // Act
    const late = await catalog.commit(CALLS, base, change('loser')).catch((e: unknown) => e);

    // Assess
    expect(late).toBeInstanceOf(CommitConflictError);
    expect(late).toMatchObject({ code: 'CATALOG_COMMIT_CONFLICT', table: CALLS });
    expect(await catalog.load(CALLS)).toEqual(winner);
    expect(await catalog.readMetadata(winner.metadataLocation)).toBe('winner');
    expect(await metadataFiles()).toEqual(['v1.metadata.json', 'v2.metadata.json', 'version-hint.text']);
  });

  it('refuses to create a table that exists, even when its v1 is gone', async () => {
    // Prepare
    const { catalog } = await tableAt(2);
    await store.deleteMany(['exports/tables/calls/metadata/v1.metadata.json']);

    // Act
    const again = await catalog.commit(CALLS, undefined, change('again')).catch((e: unknown) => e);

    // Assess
    expect(again).toBeInstanceOf(CommitConflictError);
    expect(await metadataFiles()).toEqual(['v2.metadata.json', 'version-hint.text']);
  });

  it.each([
    { name: 'the hint lags behind', hint: '2' as string | undefined },
    { name: 'the hint lags by more versions than load probes', hint: '1' },
    { name: 'there is no hint', hint: undefined },
    { name: 'the hint is not a version', hint: 'seven' },
    { name: 'the hint names a version that is gone', hint: '40' },
  ])('loads the newest version when $name', async ({ hint }) => {
    // Prepare: 20 versions, more than load probes past a hint (16), written as commits leave them.
    const folder = 'exports/tables/calls/metadata';
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.put(`${folder}/v${i + 1}.metadata.json`, `m${i + 1}`)),
    );
    if (hint !== undefined) await store.put(`${folder}/version-hint.text`, hint);
    const catalog = fileCatalogOf({ store, prefix: 'exports' });

    // Act
    const loaded = await catalog.load(CALLS);

    // Assess
    expect(loaded).toEqual({ metadataLocation: `${location()}/metadata/v20.metadata.json`, version: '20' });
  });

  it('commits when its create was retried after a lost reply and reads as existing', async () => {
    // Prepare: a store whose putIfAbsent creates, then answers as if the key existed.
    const lostReply: ObjectStore = overriding(store, {
      putIfAbsent: async (key, body) => {
        await store.putIfAbsent(key, body);
        return undefined;
      },
    });
    const { catalog, base } = await tableAt(1, lostReply);

    // Act
    const next = await catalog.commit(CALLS, base, change('m2'));

    // Assess
    expect(next.version).toBe('2');
    expect(await catalog.readMetadata(next.metadataLocation)).toBe('m2');
  });

  it('throws CommitStateUnknownError when the create fails with no answer', async () => {
    // Prepare
    const { base } = await tableAt(1);
    const failing: ObjectStore = overriding(store, {
      putIfAbsent: async () => {
        throw new Error('socket hang up');
      },
    });

    // Act
    const error = await fileCatalogOf({ store: failing, prefix: 'exports' })
      .commit(CALLS, base, change('m2'))
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(CommitStateUnknownError);
    expect(error).toMatchObject({ code: 'CATALOG_COMMIT_STATE_UNKNOWN' });
  });

  it('commits when the hint cannot be written (it is only a hint)', async () => {
    // Prepare
    const { base } = await tableAt(1);
    const noHints: ObjectStore = overriding(store, {
      put: async () => {
        throw new Error('disk full');
      },
    });
    const catalog = fileCatalogOf({ store: noHints, prefix: 'exports' });

    // Act
    const next = await catalog.commit(CALLS, base, change('m2'));

    // Assess
    expect(next.version).toBe('2');
    expect(await catalog.load(CALLS)).toEqual(next);
    expect(await text('exports/tables/calls/metadata/version-hint.text')).toBe('1');
  });

  it('repairs a lagging hint when a load probes past it, so the next reader (icebird) reads the newest', async () => {
    // Prepare: two commits whose hint writes failed: the hint says 1, the table is at 3.
    const { base } = await tableAt(1);
    const noHints = fileCatalogOf({
      store: overriding(store, {
        put: async () => {
          throw new Error('disk full');
        },
      }),
      prefix: 'exports',
    });
    await noHints.commit(CALLS, await noHints.commit(CALLS, base, change('m2')), change('m3'));
    expect(await text('exports/tables/calls/metadata/version-hint.text')).toBe('1');

    // Act
    const loaded = await fileCatalogOf({ store, prefix: 'exports' }).load(CALLS);

    // Assess
    expect(loaded?.version).toBe('3');
    expect(await text('exports/tables/calls/metadata/version-hint.text')).toBe('3');
  });

  it('refuses with STORE_KEY_INVALID to read metadata outside the store', async () => {
    // Prepare
    const catalog = fileCatalogOf({ store, prefix: 'exports' });

    // Act
    const error = await catalog.readMetadata('file:///etc/passwd').catch((e: unknown) => e);

    // Assess
    expect(error).toMatchObject({ code: OBJECT_STORE_ERROR_CODES.invalidKey });
    expect(String(error)).toContain(store.rootUri);
  });

  it('refuses a commit whose location is not the table location', async () => {
    // Prepare
    const catalog = fileCatalogOf({ store, prefix: 'exports' });
    const elsewhere = { ...change('m1'), location: objectUri(store, 'other/tables/calls') };

    // Act
    const error = await catalog.commit(CALLS, undefined, elsewhere).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(CatalogRequestError);
    expect(await listAll(store, '')).toEqual([]);
  });
});
