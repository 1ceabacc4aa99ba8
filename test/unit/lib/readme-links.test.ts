import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** The Markdown a reader of the clone meets: the root README, docs/, every README under lib/. */
function markdownFiles(): string[] {
  const found = ['README.md'];
  for (const name of readdirSync(path.join(ROOT, 'docs')).sort()) {
    if (name.endsWith('.md')) found.push(`docs/${name}`);
  }
  const folders = ['lib'];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    for (const name of readdirSync(path.join(ROOT, folder)).sort()) {
      const rel = `${folder}/${name}`;
      if (statSync(path.join(ROOT, rel)).isDirectory()) folders.push(rel);
      else if (name === 'README.md') found.push(rel);
    }
  }
  return found;
}

/** The text outside fenced code blocks, where a `](x)` is a link. */
function prose(text: string): string {
  return text.replace(/```[\s\S]*?```/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const headings = prose(readFileSync(path.join(ROOT, file), 'utf8'))
    .split('\n')
    .filter((line) => /^#+ /.test(line));
  return new Set(headings.map((line) => anchorOf(line.replace(/^#+ /, ''))));
}

/** Each relative link of a file, with the file it names (from the repository root) and its anchor. */
function links(file: string): { target: string; resolved: string; anchor: string }[] {
  const text = prose(readFileSync(path.join(ROOT, file), 'utf8'));
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => {
      const [where = '', anchor = ''] = target.split('#');
      const resolved =
        where === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), where));
      return { target, resolved, anchor };
    });
}

const FILES = markdownFiles();

describe('the READMEs and docs/', () => {
  it('finds the root README, the chapters and the folder READMEs', () => {
    expect(FILES).toContain('docs/workflow.md');
    expect(FILES).toContain('lib/export/table/README.md');
  });

  it.each(FILES)('has every relative link of %s resolve inside the clone', (file) => {
    const broken = links(file)
      .filter(({ resolved, anchor }) => {
        if (resolved.startsWith('../') || !existsSync(path.join(ROOT, resolved))) return true;
        return anchor !== '' && resolved.endsWith('.md') && !anchors(resolved).has(anchor);
      })
      .map(({ target }) => target);
    expect(broken).toEqual([]);
  });

  it.each(FILES)('names nothing outside the clone in %s', (file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    expect(text.match(/\.\.\/shared\/|\/work\/shared|ARCHITECTURE\.md/g) ?? []).toEqual([]);
  });

  it.each(FILES.filter((file) => file.startsWith('lib/')))('keeps the map %s within 150 lines', (file) => {
    const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(150);
  });

  it('keeps the root README a first screen of at most ~250 lines', () => {
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(260);
  });
});
