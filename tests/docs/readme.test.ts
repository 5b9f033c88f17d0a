/**
 * The manual stays a manual: README.md is at most 500 lines, and no relative link in the README,
 * CONTRIBUTING.md, CHANGELOG.md or docs/*.md points at a file or a heading that is not there.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { basProcess, tempDir } from '../support/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const README_LIMIT = 500;

/** The Markdown files whose links are checked, relative to the project root. */
function checkedFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...docs.sort()].filter((f) => existsSync(join(ROOT, f)));
}

/** The file's lines with fenced code blocks blanked, so a `# comment` in a shell block is no heading. */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null && open) {
      fence = open[1]![0]!.repeat(open[1]!.length);
      return '';
    }
    if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
      return '';
    }
    return line;
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function slug(heading: string): string {
  return heading
    .replace(/<[^>]*>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file offers: its headings' slugs (numbered when repeated) and explicit ids. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      found.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(m[1]!);
  }
  return found;
}

/** The relative link targets of a file, with their line numbers (code spans and blocks skipped). */
function links(text: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  proseLines(text).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
      out.push({ line: i + 1, target });
    }
  });
  return out;
}

/** Where each broken link of `file` points, as `file:line → target (why)`. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const broken: string[] = [];
  for (const { line, target } of links(text)) {
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const path = pathPart === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(pathPart));
    const where = `${file}:${line} → ${target}`;
    if (relative(ROOT, path).startsWith('..')) {
      broken.push(`${where} (outside the project)`);
      continue;
    }
    if (!existsSync(path)) {
      broken.push(`${where} (no such file)`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(path).isDirectory() || !path.endsWith('.md')) {
      broken.push(`${where} (an anchor into a file that is not Markdown)`);
      continue;
    }
    if (!anchors(readFileSync(path, 'utf8')).has(decodeURIComponent(anchor))) {
      broken.push(`${where} (no such heading)`);
    }
  }
  return broken;
}

/**
 * Sections of the README named in words rather than linked ("see Stopping and resuming in the
 * README", "the README's Exit codes section"), with their line numbers: a section that moved
 * to another page leaves such a sentence pointing nowhere, and no link check sees it.
 */
function readmeSectionsNamed(text: string): { line: number; name: string }[] {
  const out: { line: number; name: string }[] = [];
  const forms = [
    /\b[Ss]ee (?:the )?(?:["“]([^"”]+)["”]|([A-Z][\w ,'&-]*?))(?: section)? in the README\b/g,
    /\bthe README's (?:["“]([^"”]+)["”]|(\w[\w ,'&-]*?)) section\b/g,
  ];
  proseLines(text).forEach((raw, i) => {
    const line = raw.replace(/`([^`]*)`/g, '$1');
    for (const form of forms) for (const m of line.matchAll(form)) out.push({ line: i + 1, name: (m[1] ?? m[2])! });
  });
  return out;
}

/** The README sections `file` names in words that the README does not have. */
function staleSectionNames(file: string, readme: Set<string>): string[] {
  return readmeSectionsNamed(readFileSync(join(ROOT, file), 'utf8'))
    .filter(({ name }) => !readme.has(slug(name)))
    .map(({ line, name }) => `${file}:${line} names "${name}", which is no section of the README`);
}

describe('the README and the docs', () => {
  it(`README.md is a manual of at most ${README_LIMIT} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_LIMIT);
  });

  it.each(checkedFiles())('every relative link in %s points at a file and heading that exist', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it.each(checkedFiles())('every README section named in words in %s exists', (file) => {
    expect(staleSectionNames(file, anchors(readFileSync(join(ROOT, 'README.md'), 'utf8')))).toEqual([]);
  });

  it('the quick start sets up with npm ci, tests with npm test, and its eval command runs as written', async () => {
    const quick = /## Quick start\n([\s\S]*?)\n## /.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'))?.[1] ?? '';
    const first = /^npm ci && node bin\/bas\.js (eval [^#\n]*?)\s*(#.*)?$/m.exec(quick);
    expect(first, 'the quick start line `npm ci && node bin/bas.js eval …`').not.toBeNull();
    expect(quick).toMatch(/^npm test\b/m);
    const args = first![1]!.split(/\s+/);
    expect(args.join(' ')).toMatch(/--model builtin:oracle|-m builtin:oracle/);
    const r = await basProcess(args, { cwd: tempDir() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/reward/);
  });

  it('the checker itself finds a missing file, a missing heading and reads GitHub anchors', () => {
    expect(slug('`bas check`: a run in miniature')).toBe('bas-check-a-run-in-miniature');
    expect(slug('.bas.lock')).toBe('baslock');
    expect(slug('Task file (JSONL)')).toBe('task-file-jsonl');
    expect(slug('1. First contact: fail fast')).toBe('1-first-contact-fail-fast');
    const doc = '# Top\n\n## Same\n\n## Same\n\n```sh\n# not a heading\n```\n';
    expect([...anchors(doc)]).toEqual(['top', 'same', 'same-1']);
    expect(
      readmeSectionsNamed(
        'see Stopping and resuming in the README.\nSee "Exit codes" in the README; the README\'s `bas eval` section',
      ),
    ).toEqual([
      { line: 1, name: 'Stopping and resuming' },
      { line: 2, name: 'Exit codes' },
      { line: 2, name: 'bas eval' },
    ]);
    expect(links('see [a](docs/x.md#y), `[b](no.md)` and [c](https://e.org)\n```\n[d](z.md)\n```')).toEqual([
      { line: 1, target: 'docs/x.md#y' },
    ]);
  });
});
