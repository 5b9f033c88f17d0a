"""Grading through bas: a `bas reward-server` this package starts (or one named by
BAS_REWARD_URL), asked over POST /score.

The grade of a reply is what `bas score` gives it, because the server runs the same grader;
nothing here scores anything. One server per process is started on first use, on a free
loopback port, with a random bearer token so that no other local user can use it, and it is
stopped when the process exits.
"""

from __future__ import annotations

import atexit
import json
import os
import secrets
import subprocess
import threading
import urllib.error
import urllib.request
from collections import OrderedDict
from typing import Any

from .locate import BasError, bas_command

# The reward server's default --max-batch: a larger list is sent in pieces.
BATCH = 4096
# Grades kept by (label, reply): a reward and its metrics ask for the same grade.
CACHE = 4096
TOKEN_VAR = "BAS_ENV_REWARD_TOKEN"

Grade = dict[str, Any]
"""{"reward": float, "rewards": {"bas_correct", "fault_audit"}, "metrics": {...}, "detail": {...}}"""


class Grader:
    """Grades (label, reply) pairs with bas. `url`: an existing reward server (with `token`
    when it requires one); None starts one."""

    def __init__(self, url: str | None = None, token: str | None = None, timeout: float = 300) -> None:
        self._url, self._token, self._timeout = url, token, timeout
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[str, str], Grade] = OrderedDict()

    def url(self) -> str:
        """The server's base URL, starting a server on first use."""
        with self._lock:
            if self._url is None:
                self._url = self._start()
            return self._url

    def _start(self) -> str:
        self._token = secrets.token_hex(16)
        argv = bas_command() + ["reward-server", "--port", "0", "--token-var", TOKEN_VAR]
        env = {**os.environ, TOKEN_VAR: self._token}
        try:
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        except OSError as err:
            raise BasError(f"could not run {' '.join(argv)}: {err}") from err
        line = proc.stdout.readline() if proc.stdout else ""
        marker = "listening on "
        if marker not in line:
            proc.kill()
            err = (proc.stderr.read() if proc.stderr else "").strip()
            raise BasError(f"bas reward-server did not start: {err.splitlines()[-1] if err else line.strip() or 'no output'}")
        self._proc = proc
        atexit.register(self.close)
        # The server keeps writing (warnings, its closing line): drain both pipes so it never blocks.
        for stream in (proc.stdout, proc.stderr):
            threading.Thread(target=stream.read, daemon=True).start()  # type: ignore[union-attr]
        return line.split(marker, 1)[1].split(" ", 1)[0]

    def close(self) -> None:
        """Stops the server this grader started, if any."""
        proc, self._proc = self._proc, None
        if proc is not None:
            stop_process(proc)

    def grade(self, labels: list[str], replies: list[str]) -> list[Grade]:
        """One grade per (label, reply), in order, as `bas score --out` writes them."""
        if len(labels) != len(replies):
            raise ValueError(f"labels and replies must be of one length, got {len(labels)} and {len(replies)}")
        for i, (label, reply) in enumerate(zip(labels, replies)):
            if not isinstance(label, str) or not isinstance(reply, str):
                raise TypeError(f"item {i}: the label and the reply must be strings, got {type(label).__name__} and {type(reply).__name__}")
        out: list[Grade | None] = [self._cache.get((lab, rep)) for lab, rep in zip(labels, replies)]
        todo = [i for i, g in enumerate(out) if g is None]
        for start in range(0, len(todo), BATCH):
            part = todo[start : start + BATCH]
            results = self._post([{"label": labels[i], "completion": replies[i]} for i in part])
            for i, grade in zip(part, results):
                out[i] = grade
                self._remember((labels[i], replies[i]), grade)
        return out  # type: ignore[return-value]

    def _remember(self, key: tuple[str, str], grade: Grade) -> None:
        with self._lock:
            self._cache[key] = grade
            while len(self._cache) > CACHE:
                self._cache.popitem(last=False)

    def _post(self, items: list[dict[str, str]]) -> list[Grade]:
        url = self.url() + "/score"
        headers = {"content-type": "application/json"}
        if self._token:
            headers["authorization"] = f"Bearer {self._token}"
        request = urllib.request.Request(url, data=json.dumps(items).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as answer:
                body = json.loads(answer.read())
        except urllib.error.HTTPError as err:
            raise BasError(f"bas reward-server refused the grading request ({err.code}): {_message(err)}") from err
        except urllib.error.URLError as err:
            raise BasError(f"bas reward-server at {url} could not be reached: {err.reason}") from err
        results = body.get("results") if isinstance(body, dict) else None
        if not isinstance(results, list) or len(results) != len(items):
            raise BasError(f"bas reward-server at {url} answered /score without one result per item")
        return results


def _message(err: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(err.read())["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return err.reason


_default: Grader | None = None
_default_lock = threading.Lock()


def default_grader() -> Grader:
    """The process's grader: BAS_REWARD_URL (with BAS_REWARD_TOKEN) when set, else a
    `bas reward-server` started on first use."""
    global _default
    with _default_lock:
        if _default is None:
            url = os.environ.get("BAS_REWARD_URL", "").strip().rstrip("/") or None
            _default = Grader(url, os.environ.get("BAS_REWARD_TOKEN") or None)
        return _default


def grade(labels: list[str], replies: list[str]) -> list[Grade]:
    """Grades with the process's grader (see default_grader)."""
    return default_grader().grade(labels, replies)


def stop_process(proc: subprocess.Popen[str]) -> None:
    """Ends a server process: SIGTERM, then SIGKILL if it has not gone within 15 s."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
