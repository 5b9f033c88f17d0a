"""The tasks come from bas gen, and a missing or refusing bas is one clear error."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from bas_env import BasError, TaskSpec, iter_tasks, load_tasks

from .conftest import SPEC, run


def test_tasks_are_bas_gen_s_with_the_label_bas_grades_by(bas: list[str], tasks) -> None:
    full = [json.loads(line) for line in run(bas, "gen", "-n", "4", *SPEC.flags(), "--format", "jsonl").splitlines()]
    labelled = [json.loads(line) for line in run(bas, "gen", "-n", "4", *SPEC.flags(), "--format", "dataset").splitlines()]
    for t, row, lab in zip(tasks, full, labelled):
        assert (t.index, t.prompt, t.key, t.config) == (row["index"], row["prompt"], row["key"], row["config"])
        assert t.label == lab["label"] == f"bas:g{row['generator']}:p{row['prompt_version']}:n8:f0.35:s7:i{t.index}"
        assert json.loads(t.answer) == row["key"]
        assert t.info(None) | {"label": t.label} == {**row["config"], "index": t.index, "label": t.label, "split": "test",
                                                     "generator": row["generator"], "prompt_version": row["prompt_version"]}


def test_the_train_split_is_bas_gen_s_train_split(bas: list[str]) -> None:
    [train] = load_tasks(TaskSpec(split="train"), 1)
    [line] = run(bas, "gen", "-n", "1", "--split", "train", "--format", "dataset").splitlines()
    assert train.label == json.loads(line)["label"] != load_tasks(TaskSpec(), 1)[0].label


def test_an_unbounded_stream_stops_where_the_reader_stops() -> None:
    stream = iter_tasks(TaskSpec(num_transactions=4))
    first = [next(stream) for _ in range(3)]
    stream.close()  # kills the two bas gen processes
    assert [t.index for t in first] == [0, 1, 2]


def test_bad_task_flags_are_bas_s_own_one_line_message() -> None:
    with pytest.raises(BasError, match=r"--num-transactions must be an integer from 4 to 10000"):
        load_tasks(TaskSpec(num_transactions=2), 1)
    with pytest.raises(BasError, match=r"--fault-rate"):
        load_tasks(TaskSpec(fault_rate=1.5), 1)
    with pytest.raises(BasError, match=r"split must be 'train', 'test' or None"):
        load_tasks(TaskSpec(split="dev"), 1)
    with pytest.raises(BasError, match=r"whole number from 1 to 10000000"):
        load_tasks(TaskSpec(), 0)


def test_no_bas_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BAS_BIN", str(tmp_path / "missing"))
    with pytest.raises(BasError, match=r"BAS_BIN is .*missing', which is not a file"):
        load_tasks(TaskSpec(), 1)
    script = tmp_path / "bas"
    script.write_text("#!/bin/sh\necho 'bas: refused' >&2\nexit 2\n")
    monkeypatch.setenv("BAS_BIN", str(script))
    with pytest.raises(BasError, match=r"is not executable"):
        load_tasks(TaskSpec(), 1)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(BasError, match=r"`bas gen .*` failed: bas: refused"):
        load_tasks(TaskSpec(), 1)
    monkeypatch.delenv("BAS_BIN")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(BasError, match=r"bas was not found: set BAS_BIN .* or put `bas` on PATH"):
        load_tasks(TaskSpec(), 1)
    assert os.environ["PATH"].endswith("empty")
