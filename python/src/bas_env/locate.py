"""Finding the bas command line: BAS_BIN, else `bas` on PATH.

Everything this package knows about tasks and grades comes from running bas, so a missing
or broken bas is the one error every entry point can meet; it is reported once, here, with
what to do about it.
"""

from __future__ import annotations

import os
import shutil
import subprocess


class BasError(RuntimeError):
    """bas could not be found, could not start, or refused what it was asked."""


def bas_command() -> list[str]:
    """The argv prefix that runs bas: `$BAS_BIN` (an executable, or bin/bas.js run with node),
    else `bas` from PATH."""
    given = os.environ.get("BAS_BIN", "").strip()
    if given:
        if not os.path.isfile(given):
            raise BasError(f"BAS_BIN is {given!r}, which is not a file: point it at bas (e.g. CLONE/bin/bas.js)")
        if given.endswith(".js"):
            node = shutil.which("node")
            if node is None:
                raise BasError(f"BAS_BIN is {given!r}, a JavaScript file, and node is not on PATH: install Node 20 or later")
            return [node, given]
        if not os.access(given, os.X_OK):
            raise BasError(f"BAS_BIN is {given!r}, which is not executable")
        return [given]
    found = shutil.which("bas")
    if found is None:
        raise BasError(
            "bas was not found: set BAS_BIN to bas's launcher (CLONE/bin/bas.js after `npm ci` in the clone) "
            "or put `bas` on PATH (`npm link` in the clone)"
        )
    return [found]


def run_bas(args: list[str], timeout: float = 600) -> str:
    """Runs one bas command to completion and returns its standard output; a non-zero exit
    raises a BasError carrying bas's own one-line message."""
    argv = bas_command() + args
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except OSError as err:
        raise BasError(f"could not run {' '.join(argv)}: {err}") from err
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
        raise BasError(f"`bas {' '.join(args)}` failed: {message}")
    return done.stdout
