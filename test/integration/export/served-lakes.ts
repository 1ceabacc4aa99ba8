import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalDirectoryStore } from '../../../lib/stores';
import { useStoreFetch } from '../../support/store-fetch';
import { useTempDir } from '../../support/test-scope';

/**
 * For a describe block: a function giving each test a lake of its own (a local directory
 * store under a temporary directory), served to icebird's fetch.
 */
export function useServedLakes(tempPrefix: string): () => Promise<LocalDirectoryStore> {
  const dir = useTempDir(tempPrefix);
  const serve = useStoreFetch();
  let n = 0;
  return async () => {
    const root = join(dir(), `lake-${++n}`);
    await mkdir(root);
    const store = new LocalDirectoryStore(root);
    serve(store);
    return store;
  };
}
