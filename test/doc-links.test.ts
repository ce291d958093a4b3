import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * Every relative link of README.md, docs/*.md and bench/README.md points at a file of the
 * repository, and every `#anchor` (in the same document or another) at one of that document's
 * headings, as GitHub names them. The documents never point outside the repository by a
 * relative path. README.md's map links every one of the other documents, so none is orphaned.
 */

const root = path.resolve(import.meta.dirname, '..');
const guides = [...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), 'bench/README.md'];
const documents = ['README.md', ...guides];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  for (const [, heading] of withoutCode.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The links of a document outside code blocks and code spans: [text](target). */
function linksOf(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
}

const cases = documents.flatMap((doc) =>
  linksOf(readFileSync(path.join(root, doc), 'utf8'))
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target)) // http:, https:, mailto:
    .map((target) => [doc, target] as const),
);

describe('relative links of README.md, docs/*.md and bench/README.md', () => {
  it('there are some', () => {
    expect(cases.length).toBeGreaterThan(5);
  });

  it("README.md's map links every document of docs/ and bench/README.md", () => {
    const linked = new Set(cases.filter(([doc]) => doc === 'README.md').map(([, target]) => target.split('#')[0]));
    expect(guides.filter((guide) => !linked.has(guide))).toEqual([]);
  });

  it.each(cases)('%s → %s', (doc, target) => {
    const [file, anchor] = target.split('#') as [string, string | undefined];
    const resolved = file === '' ? path.join(root, doc) : path.resolve(path.dirname(path.join(root, doc)), file);
    expect(resolved.startsWith(root + path.sep), `${target} leaves the repository`).toBe(true);
    expect(existsSync(resolved), `${target} names no file (${path.relative(root, resolved)})`).toBe(true);
    if (anchor !== undefined && resolved.endsWith('.md')) {
      expect(anchorsOf(readFileSync(resolved, 'utf8')), `${target}: no heading makes #${anchor}`).toContain(anchor);
    }
  });
});
