"""Shared fixtures: bas itself (BAS_BIN or PATH; a missing bas fails every test, it never skips
them), `bas score` as the reference every door is compared with, `bas serve` as the model, and
replies of every kind (right, half right, wrong, unreadable)."""

from __future__ import annotations

import json
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bas_env import BasTask, TaskSpec, bas_command, load_tasks
from bas_env.grader import stop_process


@pytest.fixture(scope="session")
def bas() -> list[str]:
    """The argv prefix of bas; fails the session's tests when there is no bas."""
    return bas_command()


def run(bas: list[str], *args: str) -> str:
    done = subprocess.run([*bas, *args], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"bas {' '.join(args)}: {done.stderr}"
    return done.stdout


def bas_score(bas: list[str], tmp: Path, spec: TaskSpec, num: int, replies: list[tuple[int, str]]) -> list[dict]:
    """What `bas score --out` gives each (task index, reply), in order: the reference."""
    tasks, lines = tmp / "tasks.jsonl", tmp / "replies.jsonl"
    run(bas, "gen", "-n", str(num), *spec.flags(), "--format", "jsonl", "-o", str(tasks))
    counts: dict[int, int] = {}
    with lines.open("w") as out:
        for index, reply in replies:
            rollout = counts[index] = counts.get(index, -1) + 1
            out.write(json.dumps({"index": index, "rollout": rollout, "reply": reply}) + "\n")
    text = run(bas, "score", "--tasks", str(tasks), "--replies", str(lines), "--out", "-", "--max-error-rate", "1")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def replies_for(task: BasTask) -> list[str]:
    """Replies a policy might give: the key itself, one fault missed, every fault named with the
    wrong code, the BAS a cent out, fenced JSON, and unreadable ones."""
    bas_, faults = task.key["bas"], task.key["faults"]
    answer = lambda b, f: f"<answer>{json.dumps({**b, 'faults': f})}</answer>"  # noqa: E731
    missed = dict(list(faults.items())[1:])
    wrong = {row: ["outside_period" if c != "outside_period" else "gst_miscalculated" for c in codes] for row, codes in faults.items()}
    cent = {**bas_, "G1": f"{float(bas_['G1']) + 0.01:.2f}"}
    return [
        "Working...\n" + answer(bas_, faults),
        answer(bas_, missed),
        answer(bas_, wrong),
        answer(cent, faults),
        f"<answer>```json\n{json.dumps({**bas_, 'faults': faults})}\n```</answer>",
        "<answer>{}</answer>",
        "I cannot tell.",
        "",
    ]


SPEC = TaskSpec(num_transactions=8, fault_rate=0.35, seed=7)


@pytest.fixture(scope="session")
def tasks() -> list[BasTask]:
    return load_tasks(SPEC, 4)


@pytest.fixture(scope="session")
def graded(bas: list[str], tasks: list[BasTask], tmp_path_factory: pytest.TempPathFactory) -> list[tuple[BasTask, str, dict]]:
    """Every (task, reply) with what bas score gives it."""
    pairs = [(t, r) for t in tasks for r in replies_for(t)]
    scored = bas_score(bas, tmp_path_factory.mktemp("score"), SPEC, len(tasks), [(t.index, r) for t, r in pairs])
    assert len(scored) == len(pairs)
    rewards = {s["reward"] for s in scored}
    assert 0 in rewards and 1 in rewards and any(0 < x < 1 for x in rewards), rewards
    return [(t, r, s) for (t, r), s in zip(pairs, scored)]


def start(argv: list[str], pattern: str) -> tuple[subprocess.Popen[str], str]:
    """Starts a bas server and returns it with the URL its first line names."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    found = re.search(pattern, line)
    if not found:
        proc.kill()
        pytest.fail(f"{' '.join(argv)} did not start: {line}")
    # Whatever it prints later must not fill the pipe and stall it.
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # type: ignore[union-attr]
    return proc, found.group(0)


stop = stop_process


@pytest.fixture()
def serve(bas: list[str]) -> Iterator[str]:
    """`bas serve --policy slips`: right on some tasks, wrong on others; yields its /v1 URL."""
    proc, url = start([*bas, "serve", "--port", "0", "--policy", "slips"], r"http://[\d.]+:\d+/v1")
    yield url
    stop(proc)


@pytest.fixture()
def reward_server(bas: list[str]) -> Iterator[str]:
    """A `bas reward-server` of the test's own; yields its base URL."""
    proc, url = start([*bas, "reward-server", "--port", "0", "--workers", "0"], r"http://[\d.]+:\d+")
    yield url
    stop(proc)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A skipped test is a failed run: every door must be checked, not assumed."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and reporter.stats.get("skipped"):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
