"""verl's door: the Parquet rows in verl's shape, and compute_score called as verl 0.9.1's
reward managers call it (read from verl/experimental/reward_loop/reward_manager/naive.py:
keyword arguments, extra_info from the row with num_turns and rollout_reward_scores added, in
an executor thread; a dict result's "score" is the reward and its other keys are logged).
verl itself is not installed here: it needs torch."""

from __future__ import annotations

import asyncio
import copy

import pyarrow.parquet as pq
import pytest

from bas_env import compute_score, write_parquet
from bas_env.verl import main

from .conftest import SPEC


def test_the_parquet_file_has_verl_s_columns_and_bas_s_tasks(tmp_path, tasks) -> None:
    path = tmp_path / "bas.parquet"
    assert write_parquet(str(path), SPEC, 4) == 4
    table = pq.read_table(path)
    assert table.column_names == ["data_source", "prompt", "ability", "reward_model", "extra_info"]
    rows = table.to_pylist()
    for row, t in zip(rows, tasks):
        assert row["data_source"] == "bas"
        assert row["prompt"] == t.prompt  # the chat messages verl's RLHFDataset templates
        assert row["reward_model"] == {"style": "rule", "ground_truth": t.answer}
        assert row["extra_info"] == {**t.config, "index": t.index, "label": t.label, "split": "test",
                                     "generator": t.generator, "prompt_version": t.prompt_version}


def test_the_command_line_writes_a_split(tmp_path, capsys) -> None:
    out = tmp_path / "train.parquet"
    assert main(["-n", "3", "--split", "train", "--num-transactions", "6", "--out", str(out)]) == 0
    info = [r["extra_info"] for r in pq.read_table(out).to_pylist()]
    assert [(i["index"], i["split"], i["num_transactions"]) for i in info] == [(0, "train", 6), (1, "train", 6), (2, "train", 6)]
    assert main(["-n", "1", "--num-transactions", "3", "--out", str(out)]) == 2
    assert "--num-transactions must be an integer" in capsys.readouterr().err


def test_compute_score_as_verl_calls_it_equals_bas_score(tmp_path, graded) -> None:
    write_parquet(str(tmp_path / "d.parquet"), SPEC, 4)
    rows = pq.read_table(tmp_path / "d.parquet").to_pylist()

    async def verl_reward_loop(row: dict, response_str: str) -> dict:
        extra_info = copy.deepcopy(row["extra_info"]) or {}
        extra_info["num_turns"] = 2
        extra_info["rollout_reward_scores"] = {}
        result = await asyncio.get_running_loop().run_in_executor(
            None,
            lambda: compute_score(
                data_source=row["data_source"],
                solution_str=response_str,
                ground_truth=row["reward_model"]["ground_truth"],
                extra_info=extra_info,
            ),
        )
        assert isinstance(result, dict)
        return {"reward_score": result["score"], "reward_extra_info": dict(result)}

    for task, reply, want in graded:
        got = asyncio.run(verl_reward_loop(rows[task.index], reply))
        assert got["reward_score"] == want["reward"]
        assert got["reward_extra_info"] == {"score": want["reward"], **want["rewards"], **want["metrics"]}


def test_compute_score_refuses_rows_it_cannot_grade(tasks) -> None:
    with pytest.raises(ValueError, match="data_source 'bas' only"):
        compute_score("gsm8k", "x", "1", {"label": tasks[0].label})
    with pytest.raises(ValueError, match="extra_info has no 'label'"):
        compute_score("bas", "x", tasks[0].answer, {"index": 0})
