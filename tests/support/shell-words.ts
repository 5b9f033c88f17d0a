/**
 * Reading back the commands bas prints for a person to run (a resume, a report), as a POSIX
 * shell would split them.
 */
import { expect } from 'vitest';

/** The words of a command line as a POSIX shell splits them: bare words, backslashes, single quotes. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/(?:\\.|'[^']*'|[^\s'\\])+/g))
    words.push(m[0].replace(/\\(.)|'([^']*)'/g, (_, escaped?: string, quoted?: string) => escaped ?? quoted ?? ''));
  return words;
}

/** The words of the command in `text` that starts with `bas <command> --resume`, as a shell splits them. */
export function commandWords(text: string, command: 'eval' | 'sweep'): string[] {
  const start = text.indexOf(`bas ${command} --resume `);
  expect(start, text).toBeGreaterThanOrEqual(0);
  // The command runs to the end of the line or to the prose after it.
  return shellWords(text.slice(start).split(/\n|\)(?=[,;]|$)|, or |, then | re-runs | --max-cost USD/m)[0]!);
}

/** The folder after --resume, and the value after each flag the command gives. */
export function resumed(words: string[]): { dir: string; flags: Map<string, string> } {
  const at = words.indexOf('--resume');
  const flags = new Map<string, string>();
  for (let i = at + 2; i < words.length; i += 2) flags.set(words[i]!, words[i + 1]!);
  return { dir: words[at + 1]!, flags };
}
