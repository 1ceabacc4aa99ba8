import type { DirectoryItemFields } from '../../spec';
import { InvalidValueError } from '../http/errors';

/**
 * Applies an RFC 6902 JSON Patch to an item's fields. Supported: add, replace, remove,
 * test on `/fields/<name>` (the only members a client may change). Anything else is a
 * 400 naming the operation.
 */
export function applyFieldsPatch(fields: DirectoryItemFields, patch: unknown): Record<string, unknown> {
  if (!Array.isArray(patch) || patch.length === 0) throw new InvalidValueError(patch);
  const next: Record<string, unknown> = { ...fields };
  for (const op of patch) {
    if (typeof op !== 'object' || op === null) throw new InvalidValueError(op);
    const { op: kind, path, value } = op as { op?: unknown; path?: unknown; value?: unknown };
    const m = typeof path === 'string' ? /^\/fields\/([^/]+)$/.exec(path) : null;
    const name = m?.[1]?.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!name) throw new InvalidValueError(path);
    switch (kind) {
      case 'add':
      case 'replace':
        if (kind === 'replace' && !(name in next)) throw new InvalidValueError(path);
        next[name] = value;
        break;
      case 'remove':
        if (!(name in next)) throw new InvalidValueError(path);
        delete next[name];
        break;
      case 'test':
        if (next[name] !== value) throw new InvalidValueError(value);
        break;
      default:
        throw new InvalidValueError(kind);
    }
  }
  return next;
}
