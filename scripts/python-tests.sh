#!/usr/bin/env bash
# The Python package's tests (python/): a virtual environment outside the repository with the
# pinned versions from PyPI, the package installed from ./python as a user installs it, then its
# pytest against this clone's bas (bin/bas.js). Anything that cannot be had fails the run; no
# test is skipped. A second run reuses the environment and reinstalls only when the pins or
# python/ changed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=${BAS_PY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/bas/py-venv}
PYTHON=${BAS_PYTHON:-python3}
# The libraries the package adapts to, pytest, and uv (verifiers' null harness runs its chat
# program under uv). Change a pin here and in python/pyproject.toml together.
PINS=(verifiers==0.4.0 pyarrow==26.0.1 pytest==9.2.0 uv==0.9.5)

fail() { echo "python-tests: $*" >&2; exit 1; }

command -v "$PYTHON" >/dev/null 2>&1 || fail "$PYTHON not found: install Python 3.11 to 3.14 (or set BAS_PYTHON)"
"$PYTHON" -c 'import sys; sys.exit(not ((3, 11) <= sys.version_info[:2] < (3, 15)))' \
  || fail "$("$PYTHON" --version 2>&1) is not 3.11 to 3.14, which verifiers 0.4.0 needs (set BAS_PYTHON)"
[ -f dist/cli.js ] || npm run build >/dev/null

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV" || fail "could not create the virtual environment $VENV"
fi
# What the environment was built from: the pins, the interpreter, and every file of the package.
stamp=$( { printf '%s\n' "${PINS[@]}"; "$VENV/bin/python" --version;
  git ls-files -s -- python; git diff --no-ext-diff -- python; git ls-files -o --exclude-standard -- python \
  | xargs -r sha1sum; } | sha1sum | cut -d' ' -f1)
if [ "$(cat "$VENV/.bas-stamp" 2>/dev/null)" != "$stamp" ]; then
  # PyPI only: no local wheel folder or mirror from the machine's pip configuration.
  export PIP_FIND_LINKS="" PIP_DISABLE_PIP_VERSION_CHECK=1
  "$VENV/bin/python" -m pip install -q "${PINS[@]}" \
    || fail "could not install ${PINS[*]} from PyPI"
  # Built in a temporary copy, so the clone gets no build/ or .egg-info folders.
  build=$(mktemp -d)
  trap 'rm -rf "$build"' EXIT
  cp -r python/. "$build"
  rm -rf "$build"/build "$build"/src/*.egg-info
  "$VENV/bin/python" -m pip install -q --force-reinstall --no-deps "$build" \
    || fail "could not install ./python"
  "$VENV/bin/python" -m pip install -q "$build" || fail "could not install ./python's dependencies"
  echo "$stamp" > "$VENV/.bas-stamp"
fi

export BAS_BIN="$ROOT/bin/bas.js"
cd python
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests "$@"
