import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, readSources } from '../api/import-graph';

const LIB = path.resolve(import.meta.dirname, '../../../lib');

/**
 * The folders of lib/ and the folders each may import, as ../shared/ARCHITECTURE.md draws
 * them: cli -> local -> infra (definition only), lambdas -> workflow -> export -> api,
 * stores, spec; the local service depends on spec alone (and the command-line parsing
 * both programs share). Static imports only: a lazy `import()` is how a deliberate edge
 * that must not load early is written, and it still must point down (checked below too).
 */
const ALLOWED: Record<string, readonly string[]> = {
  spec: [],
  'command-line': [],
  stores: ['spec'],
  api: ['spec'],
  simulator: ['spec', 'command-line'],
  export: ['api', 'stores', 'spec'],
  workflow: ['export', 'api', 'stores', 'spec'],
  infra: ['workflow', 'export', 'stores', 'spec'],
  local: ['infra', 'workflow', 'export', 'api', 'stores', 'simulator', 'spec', 'command-line'],
  cli: ['local', 'infra', 'workflow', 'export', 'api', 'stores', 'simulator', 'spec', 'command-line'],
};

const folderOf = (file: string) => path.relative(LIB, file).split(path.sep)[0] as string;

describe('lib/ folders', () => {
  it('import only the folders below them, as the architecture draws', () => {
    // Prepare
    const sources = readSources(LIB);
    const graph = importGraph(sources);

    // Act
    const folders = new Set([...sources.keys()].map(folderOf));
    const against = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) => folderOf(to) !== folderOf(from) && !ALLOWED[folderOf(from)]?.includes(folderOf(to)))
        .map((to) => `${path.relative(LIB, from)} -> ${path.relative(LIB, to)}`),
    );

    // Assess: every folder has a rule, and no import runs against them.
    expect([...folders].filter((f) => ALLOWED[f] === undefined)).toEqual([]);
    expect(graph.size).toBeGreaterThan(200);
    expect(against).toEqual([]);
  });

  it('has no cycle between folders', () => {
    // The rules above form an order: check it is one (a rule set with a cycle would let one through).
    const order: string[] = [];
    const visit = (f: string, stack: string[]): void => {
      if (stack.includes(f)) throw new Error(`cycle: ${[...stack, f].join(' -> ')}`);
      if (order.includes(f)) return;
      for (const to of ALLOWED[f] ?? []) visit(to, [...stack, f]);
      order.push(f);
    };
    for (const f of Object.keys(ALLOWED)) visit(f, []);
    expect(order).toHaveLength(Object.keys(ALLOWED).length);
  });

  it('in lib/cli: a command folder imports the shared folders, never another command', () => {
    // Prepare: lib/cli as gh lays out its program: commands/<command>/ over shared/ and aws/.
    const cli = path.join(LIB, 'cli');
    const graph = importGraph(readSources(cli));
    const partOf = (file: string) => {
      const [top = '', name = ''] = path.relative(cli, file).split(path.sep);
      return top === 'commands' ? `commands/${name}` : top.endsWith('.ts') ? 'program' : top;
    };
    const mayImport = (from: string, to: string) =>
      from === to ||
      from === 'program' ||
      (from.startsWith('commands/') && (to === 'shared' || to === 'aws')) ||
      (from === 'aws' && to === 'shared');

    // Act
    const against = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) => to.startsWith(cli) && !mayImport(partOf(from), partOf(to)))
        .map((to) => `${path.relative(cli, from)} -> ${path.relative(cli, to)}`),
    );

    // Assess
    expect(new Set([...graph.keys()].map(partOf)).size).toBeGreaterThan(12);
    expect(against).toEqual([]);
  });
});
