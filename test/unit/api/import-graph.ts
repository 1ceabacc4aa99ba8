import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// A static checker of relative imports between TypeScript modules, for the "dependencies
// point one way" rule. Type-only imports count: a type cycle still ties two modules
// together (one cannot move or be read without the other). Dynamic `import()` does not
// count: loading lazily is how a deliberate back edge is written.

/** Source text by absolute path; the checker reads nothing else. */
export type SourceFiles = ReadonlyMap<string, string>;

/** Every `.ts` file under `root` (declaration files excluded), read into memory. */
export function readSources(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
        out.set(full, readFileSync(full, 'utf8'));
    }
  };
  if (existsSync(root) && statSync(root).isDirectory()) walk(root);
  return out;
}

/** Module specifiers of the static `import ... from` / `export ... from` statements of one file. */
export function staticSpecifiers(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of source.statements) {
    const specifier =
      ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)
        ? statement.moduleSpecifier
        : ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)
          ? statement.moduleReference.expression
          : undefined;
    if (specifier && ts.isStringLiteral(specifier)) out.push(specifier.text);
  }
  return out;
}

/** Resolves a relative specifier the way the bundler does (`.ts`, `/index.ts`, `.js` -> `.ts`). */
export function resolveRelative(from: string, specifier: string, files: SourceFiles): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  const stem = base.replace(/\.(m?js|ts)$/, '');
  for (const candidate of [base, `${stem}.ts`, path.join(base, 'index.ts')]) {
    if (files.has(candidate)) return candidate;
  }
  return undefined;
}

/** Edges from each file to the files it imports, restricted to `files`. */
export function importGraph(files: SourceFiles): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const targets = new Set<string>();
    for (const specifier of staticSpecifiers(file, text)) {
      const target = resolveRelative(file, specifier, files);
      if (target !== undefined) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * One cycle per strongly connected component that has one (Tarjan), each as a path that
 * starts and ends at the same file, e.g. `[a, b, a]`. Sorted, so the output is stable.
 */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  // Iterative, so a deep import chain cannot overflow the call stack.
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { node: string; edge: number }[] = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; edge: number };
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++] as string;
        if (!graph.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(to) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent)
        low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        for (;;) {
          const member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
          if (member === frame.node) break;
        }
        const selfLoop = (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components.map((c) => cyclePath(graph, c)).sort((a, b) => a.join().localeCompare(b.join()));
}

/** A shortest cycle through the first member of a component (breadth-first inside it). */
function cyclePath(graph: ReadonlyMap<string, readonly string[]>, component: string[]): string[] {
  const members = new Set(component);
  const start = component[0] as string;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] as string;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const pathBack = [node];
        while (pathBack[0] !== start) pathBack.unshift(previous.get(pathBack[0] as string) as string);
        return [...pathBack, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}
