"""The grader: bas reward-server, started by the package or named by BAS_REWARD_URL; batches
larger than the server's --max-batch go in pieces; failures are one clear error."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bas_env import BasError, Grader
from bas_env import grader as grader_module


def test_a_given_server_grades_as_bas_score(reward_server, graded) -> None:
    g = Grader(reward_server)
    got = g.grade([t.label for t, _, _ in graded], [r for _, r, _ in graded])
    assert [{k: x[k] for k in ("reward", "rewards", "metrics")} for x in got] == [
        {k: s[k] for k in ("reward", "rewards", "metrics")} for _, _, s in graded
    ]


def test_a_batch_past_max_batch_goes_in_pieces(monkeypatch, graded) -> None:
    monkeypatch.setattr(grader_module, "BATCH", 5)
    g = Grader()
    try:
        got = g.grade([t.label for t, _, _ in graded], [r for _, r, _ in graded])
    finally:
        g.close()
    assert [x["reward"] for x in got] == [s["reward"] for _, _, s in graded]


def test_failures_are_one_clear_error(tasks) -> None:
    with pytest.raises(BasError, match=r"could not be reached"):
        Grader("http://127.0.0.1:9", timeout=5).grade([tasks[0].label], ["x"])
    with pytest.raises(ValueError, match="of one length"):
        Grader("http://127.0.0.1:9").grade([tasks[0].label], [])


def test_verl_and_trl_need_no_verifiers() -> None:
    code = (
        "import sys; sys.modules['verifiers'] = None\n"
        "from bas_env import bas_reward, compute_score, write_parquet, load_tasks\n"
        "import bas_env.verl, bas_env.trl\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
