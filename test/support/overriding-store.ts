import type { ObjectStore } from '../../lib/stores';

/**
 * `inner` with some operations replaced (a store as a test wants it to answer). Its optional
 * ranged read is left out, so a reader of a file's tail streams it unless `overrides` gives one.
 */
export function overriding(inner: ObjectStore, overrides: Partial<ObjectStore> = {}): ObjectStore {
  return {
    rootUri: inner.rootUri,
    put: (key, body, options) => inner.put(key, body, options),
    putIfAbsent: (key, body, options) => inner.putIfAbsent(key, body, options),
    putFile: (key, file, options) => inner.putFile(key, file, options),
    putFileIfAbsent: (key, file, options) => inner.putFileIfAbsent(key, file, options),
    get: (key) => inner.get(key),
    head: (key) => inner.head(key),
    list: (prefix) => inner.list(prefix),
    deleteMany: (keys) => inner.deleteMany(keys),
    copy: (from, to) => inner.copy(from, to),
    ...overrides,
  };
}
