#!/usr/bin/env node
// Launcher only: the program lives in the compiled CLI. `bas --version` alone is answered
// here, without loading the CLI and commander, since scripts call it to probe the install.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else {
  const { main } = await import('../dist/cli.js');
  main(process.argv);
}
