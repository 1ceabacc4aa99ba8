import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, readSources } from '../api/import-graph';

const EXPORT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../lib/export');

/**
 * Layers of lib/export, lowest first: a module may import its own layer or a lower one.
 * The top-level modules (schema, layout, window, time zone, errors, types) are the base;
 * the entry point and the modules that compose the folders sit above everything.
 */
const ENTRY = new Set([
  'index.ts',
  'export-report-result.ts',
  'export-options.ts',
  'resolve-export-options.ts',
  'read-partitions.ts',
]);
const FOLDERS = ['rows', 'formats', 'spill', 'table', 'publish', 'contacts'];

function layer(file: string): number {
  const rel = path.relative(EXPORT, file);
  const folder = path.dirname(rel);
  if (folder === '.') return ENTRY.has(rel) ? FOLDERS.length + 1 : 0;
  const index = FOLDERS.indexOf(folder.split(path.sep)[0] as string);
  return index < 0 ? Number.POSITIVE_INFINITY : index + 1;
}

const TABLE = path.join(EXPORT, 'table');
/**
 * table/'s folders, lowest first, as pyiceberg stacks its modules: the Avro container files,
 * the format's types and the metadata JSON, manifests and manifest lists (and the table's
 * file IO), the overwrite producer and the history it reads, and the committer (catalog
 * compare-and-swap, requests, rollbacks) over them; table/index.ts, the surface, above all.
 */
const TABLE_FOLDERS = ['avro', 'metadata', 'manifest', 'snapshot', 'commit'];

function tableLayer(file: string): number {
  const rel = path.relative(TABLE, file);
  if (rel === 'index.ts') return TABLE_FOLDERS.length + 1;
  const index = TABLE_FOLDERS.indexOf(rel.split(path.sep)[0] as string);
  return index < 0 || !rel.includes(path.sep) ? Number.POSITIVE_INFINITY : index + 1;
}

describe('lib/export imports', () => {
  it('point one way, from the entry point through publish, table, spill, formats and rows to the top-level modules', () => {
    // Prepare
    const graph = importGraph(readSources(EXPORT));

    // Act
    const upward = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) => layer(to) > layer(from))
        .map((to) => `${path.relative(EXPORT, from)} -> ${path.relative(EXPORT, to)}`),
    );

    // Assess
    expect(graph.size).toBeGreaterThan(20);
    expect(upward).toEqual([]);
  });

  it('in table/: point one way, from commit through snapshot, manifest and metadata to avro', () => {
    // Prepare
    const graph = importGraph(readSources(TABLE));

    // Act
    const upward = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) => tableLayer(to) > tableLayer(from))
        .map((to) => `${path.relative(TABLE, from)} -> ${path.relative(TABLE, to)}`),
    );

    // Assess: every module is in a layer, and none imports a higher one.
    expect([...graph.keys()].filter((f) => tableLayer(f) === Number.POSITIVE_INFINITY)).toEqual([]);
    expect(new Set([...graph.keys()].map(tableLayer)).size).toBe(TABLE_FOLDERS.length + 1);
    expect(upward).toEqual([]);
  });

  it('enters table/ only through its index.ts from the rest of lib/export', () => {
    // Prepare
    const graph = importGraph(readSources(EXPORT));
    const inTable = (file: string) => !path.relative(TABLE, file).startsWith('..');

    // Act
    const reachingIn = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) => !inTable(from) && inTable(to) && to !== path.join(TABLE, 'index.ts'))
        .map((to) => `${path.relative(EXPORT, from)} -> ${path.relative(EXPORT, to)}`),
    );

    // Assess
    expect(reachingIn).toEqual([]);
  });

  it('keeps index.ts to re-exports when it is read', () => {
    // Prepare
    const index = readSources(EXPORT).get(path.join(EXPORT, 'index.ts')) ?? '';

    // Act
    const statements = index.split(/;\s*/).filter((s) => s.trim() !== '');

    // Assess
    expect(statements.length).toBeGreaterThan(5);
    for (const statement of statements)
      expect(statement.trim()).toMatch(/^export (type )?\{[^}]*\} from '(\.\/[^']+|\.\.\/calendar)'$/s);
  });
});
