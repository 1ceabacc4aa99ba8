import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalDirectoryStore, listAll, readObject } from '../../../lib/stores';
import { useCliProcesses, useTempDir } from '../../support/test-scope';

const KEYS = 50;
/** Large enough that the two writers' temp files are being written at the same time. */
const BYTES = 64 * 1024;

describe('LocalDirectoryStore.putIfAbsent across processes', () => {
  const dir = useTempDir('put-if-absent-race-');
  const processes = useCliProcesses();

  it('lets exactly one of two processes create each key, whole, when they race for the same keys', async () => {
    // Prepare
    const racers = ['a', 'b'].map((who) =>
      processes.start([dir(), who, String(KEYS), String(BYTES)], {
        script: 'test/integration/stores/put-if-absent-racer.ts',
      }),
    );
    await Promise.all(racers.map((r) => r.waitFor(/^ready$/m, { stream: 'stdout' })));

    // Act
    await writeFile(join(dir(), 'go'), '');
    const results = await Promise.all(
      racers.map(async (r) => {
        const [line = ''] = await r.waitFor(/^\{.*\}$/m, { stream: 'stdout' });
        return JSON.parse(line) as { who: string; created: string[] };
      }),
    );

    // Assess
    const store = new LocalDirectoryStore(dir());
    const [a, b] = results.map((r) => new Set(r.created));
    const all = Array.from({ length: KEYS }, (_, i) => `race/${i}`);
    expect(all.filter((key) => a?.has(key) === b?.has(key))).toEqual([]); // one winner per key
    expect((await listAll(store, 'race/')).map((o) => o.key).sort()).toEqual([...all].sort());
    for (const { who, created } of results) {
      for (const key of created) {
        const body = `${who} ${key.slice('race/'.length)} `.padEnd(BYTES, who);
        expect(Buffer.from(await readObject(store, key)).toString(), key).toBe(body);
      }
    }
    expect(await store.removeUnfinishedWrites('race/')).toEqual([]); // no temp file left
  });
});
