import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importGraph, readSources, resolveRelative } from '../api/import-graph';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const LIB = path.join(ROOT, 'lib');

/**
 * Each folder's surface, as a package's `exports` map declares one: `index.ts`, and the
 * few light entries (subpaths) that code which must load fast reaches without loading the
 * folder's index: the CLI's option specs, which render `--help` and completion with no
 * command code and no npm package loaded (test/cli/binary.test.ts). A light entry loads no
 * npm package, directly or through what it imports (checked below). Everything else of a
 * folder is internal: code outside it (lib/, lambdas/, bin/) imports it only through these.
 * Tests and benches reach internals on purpose (they test and time them).
 */
const LIGHT_ENTRIES: Record<string, readonly string[]> = {
  api: ['endpoints.ts', 'errors.ts', 'phone-region.ts', 'service-text.ts', 'validate.ts'],
  // The calendar is light whole: its index loads nothing but its own modules.
  calendar: ['index.ts'],
  export: ['errors.ts', 'export-options.ts', 'formats/parquet-codecs.ts', 'rows/partitioner.ts'],
  simulator: ['cli-options.ts', 'defaults.ts'],
  // The stores' index holds the ports and local adapters and loads no package; the export
  // core, its encode worker and the local runtime never load the AWS SDK through it (a bundle
  // of the core that did: +17 MB of peak RSS at 900,400 rows). The AWS adapters are ./aws.ts.
  stores: ['index.ts', 'object-store.ts', 'process-identity.ts'],
  workflow: ['settings-defaults.ts'],
};

/** Declared entries besides index.ts that may load packages: the AWS adapters of the stores. */
const OTHER_ENTRIES: Record<string, readonly string[]> = {
  stores: ['aws.ts'],
};

/**
 * The folders of lib/ and the folders each may import, as ../shared/ARCHITECTURE.md draws
 * them: cli -> local -> infra (definition only), lambdas -> workflow -> export -> api,
 * stores, spec; the calendar (zones, local days, windows) is a ground floor beside spec;
 * the local service depends on spec alone (and the command-line parsing both programs
 * share), never on the calendar: it keeps its own zone code, an independent side of the
 * contract. Static imports only: a lazy `import()` is how a deliberate edge
 * that must not load early is written, and it still must point down (checked below too).
 */
const ALLOWED: Record<string, readonly string[]> = {
  spec: [],
  calendar: [],
  'command-line': [],
  stores: ['spec'],
  api: ['spec'],
  simulator: ['spec', 'command-line'],
  export: ['api', 'stores', 'spec', 'calendar'],
  workflow: ['export', 'api', 'stores', 'spec', 'calendar'],
  infra: ['workflow', 'export', 'stores', 'spec', 'calendar'],
  local: ['infra', 'workflow', 'export', 'api', 'stores', 'simulator', 'spec', 'calendar', 'command-line'],
  cli: [
    'local',
    'infra',
    'workflow',
    'export',
    'api',
    'stores',
    'simulator',
    'spec',
    'calendar',
    'command-line',
  ],
};

/** Specifiers of the imports and re-exports that load a module (type-only ones are erased). */
function loadedSpecifiers(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            bindings !== undefined &&
            ts.isNamedImports(bindings) &&
            bindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly && ts.isStringLiteral(statement.moduleSpecifier))
        out.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      if (ts.isStringLiteral(statement.moduleSpecifier)) out.push(statement.moduleSpecifier.text);
    }
  }
  return out;
}

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

  it('enter a folder only through its index.ts or a declared light entry', () => {
    // Prepare: every module of lib/, lambdas/ and bin/.
    const sources = new Map([
      ...readSources(LIB),
      ...readSources(path.join(ROOT, 'lambdas')),
      ...readSources(path.join(ROOT, 'bin')),
    ]);
    const graph = importGraph(sources);
    const surface = (folder: string) =>
      new Set(
        ['index.ts', ...(LIGHT_ENTRIES[folder] ?? []), ...(OTHER_ENTRIES[folder] ?? [])].map((f) =>
          path.join(LIB, folder, f),
        ),
      );
    const inLib = (file: string) => !path.relative(LIB, file).startsWith('..');

    // Act
    const reachingIn = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) => inLib(to) && folderOf(to) !== (inLib(from) ? folderOf(from) : undefined))
        .filter((to) => !surface(folderOf(to)).has(to))
        .map((to) => `${path.relative(ROOT, from)} -> ${path.relative(ROOT, to)}`),
    );

    // Assess
    expect(graph.size).toBeGreaterThan(250);
    expect(reachingIn).toEqual([]);
  });

  it('keeps every light entry light: no npm package reached through its static imports', () => {
    // Prepare
    const sources = readSources(LIB);
    const entries = Object.entries(LIGHT_ENTRIES).flatMap(([folder, files]) =>
      files.map((f) => path.join(LIB, folder, f)),
    );

    // Act: walk what each entry loads (its static imports that are not type-only).
    const packagesOf = (entry: string): string[] => {
      const seen = new Set<string>();
      const packages: string[] = [];
      const stack = [entry];
      while (stack.length > 0) {
        const file = stack.pop() as string;
        if (seen.has(file)) continue;
        seen.add(file);
        for (const specifier of loadedSpecifiers(file, sources.get(file) ?? '')) {
          const target = resolveRelative(file, specifier, sources);
          if (target !== undefined) stack.push(target);
          else if (!specifier.startsWith('.') && !specifier.startsWith('node:'))
            packages.push(`${path.relative(LIB, file)} imports ${specifier}`);
        }
      }
      return packages;
    };

    // Assess
    expect(entries.filter((e) => !sources.has(e))).toEqual([]);
    expect(entries.flatMap(packagesOf)).toEqual([]);
  });
});
