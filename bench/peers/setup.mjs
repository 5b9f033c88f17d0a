// The peers' virtual environments, outside the repository: one for inspect_ai and one for
// verifiers, since they cannot share one (inspect_ai's OpenAI provider needs openai >= 3.4;
// verifiers 0.4.0 requires openai < 3). Each is made once; a stamp file holding its pinned
// requirements marks it done, so a second run only checks the stamp.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the environments live: BAS_PEERS_HOME, else ~/.cache/bas/peers. */
const PEERS_HOME =
  process.env.BAS_PEERS_HOME ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'bas', 'peers');

/** What each environment installs from PyPI, pinned. uv runs verifiers' per-rollout chat program. */
const PEER_ENVS = {
  inspect: ['inspect-ai==0.3.285', 'openai==3.63.0'],
  verifiers: ['verifiers==0.4.0', 'uv==0.13.9'],
};

/** A failure to set the peers up: its message says what was missing and what to do. */
export class PeerSetupError extends Error {}

function findPython() {
  for (const py of ['python3.11', 'python3.12', 'python3.13', 'python3']) {
    const r = spawnSync(py, ['-c', 'import sys, venv; print(sys.version_info >= (3, 11))'], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim() === 'True') return py;
  }
  throw new PeerSetupError(
    'no Python 3.11 or later with the venv module was found (verifiers 0.4.0 needs 3.11+): ' +
      'install it (Debian: apt-get install python3 python3-venv) and run the section again',
  );
}

/**
 * Makes (or reuses) both environments; resolves to {inspect, verifiers}, each the folder of its
 * bin/. Says on standard error what it installs the first time. Throws PeerSetupError.
 */
export function ensurePeers() {
  const made = {};
  let python;
  for (const [name, reqs] of Object.entries(PEER_ENVS)) {
    const dir = join(PEERS_HOME, name);
    const stamp = join(dir, 'bas-peers-stamp.txt');
    const want = reqs.join('\n');
    if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
      python ??= findPython();
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(PEERS_HOME, { recursive: true });
      console.error(`peers: installing ${reqs.join(' ')} into ${dir} (from PyPI; a few hundred MB, a few minutes)`);
      const steps = [
        [python, ['-m', 'venv', dir]],
        [join(dir, 'bin', 'pip'), ['install', '-q', '--disable-pip-version-check', ...reqs]],
      ];
      for (const [cmd, args] of steps) {
        const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
        if (r.status !== 0)
          throw new PeerSetupError(
            `could not install ${reqs.join(' ')} into ${dir} (${cmd} exited with ${r.status ?? r.error?.code}): ` +
              'see pip output above; the section needs PyPI to be reachable',
          );
      }
      writeFileSync(stamp, want);
    }
    made[name] = join(dir, 'bin');
  }
  return made;
}
