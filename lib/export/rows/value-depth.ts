/**
 * Deepest nesting, in containers (`[[1]]` nests 2), of a member value the export writes as
 * JSON text itself (into `extra`, when the row carries no source text for it). Writing it is
 * `JSON.stringify`, which recurses and overflows the stack a few thousand levels down; so a
 * deeper value is refused (EXPORT_ROW_INVALID naming the row and member) before. The same
 * limit as the client's (lib/api), which refuses deeper values of the service before they
 * reach the export; this one holds rows from any other source.
 */
export const MAX_VALUE_DEPTH = 128;

/**
 * Whether `value` nests deeper than `limit` containers: walked with an explicit stack (never
 * recursion), stopping at the first container past the limit, so a cyclic value is too deep
 * rather than endless.
 */
export function nestsDeeperThan(value: object, limit: number = MAX_VALUE_DEPTH): boolean {
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
