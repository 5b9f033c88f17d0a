"""bas for verl: the dataset in verl's Parquet shape, and the `compute_score` verl's reward
managers call (`custom_reward_function.path=pkg://bas_env.verl`, `.name=compute_score`).

verl 0.9 calls `compute_score(data_source=..., solution_str=..., ground_truth=...,
extra_info=...)` once per response (in a thread when the function is synchronous) and takes
either a float or a dict with a "score" key, whose other keys it logs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .grader import default_grader
from .locate import BasError
from .tasks import TaskSpec, iter_tasks

DATA_SOURCE = "bas"
ABILITY = "bookkeeping"


def verl_rows(spec: TaskSpec, num: int) -> list[dict[str, Any]]:
    """Rows {data_source, prompt, ability, reward_model: {style, ground_truth}, extra_info}:
    the answer key (JSON) as ground_truth; the configuration, index and label in extra_info."""
    return [
        {
            "data_source": DATA_SOURCE,
            "prompt": t.prompt,
            "ability": ABILITY,
            "reward_model": {"style": "rule", "ground_truth": t.answer},
            "extra_info": t.info(spec.split),
        }
        for t in iter_tasks(spec, num)
    ]


def write_parquet(path: str, spec: TaskSpec, num: int) -> int:
    """Writes tasks 0..num-1 of `spec` to a Parquet file in verl's shape; returns the row count."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = verl_rows(spec, num)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return len(rows)


def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None, **_: Any
) -> dict[str, float]:
    """bas's grade of one response: {"score": reward, bas_correct, fault_audit, and the metrics}.
    The task is named by extra_info["label"], which the rows above carry."""
    if data_source != DATA_SOURCE:
        raise ValueError(f"bas_env.verl.compute_score grades data_source 'bas' only, got {data_source!r}")
    label = (extra_info or {}).get("label")
    if not isinstance(label, str):
        raise ValueError("extra_info has no 'label': write the dataset with bas_env (python -m bas_env.verl)")
    [grade] = default_grader().grade([label], [solution_str])
    return {"score": float(grade["reward"]), **_flat(grade)}


def _flat(grade: dict[str, Any]) -> dict[str, float]:
    return {k: float(v) for part in ("rewards", "metrics") for k, v in grade[part].items()}


def main(argv: list[str] | None = None) -> int:
    """python -m bas_env.verl -n N [--split train|test] [task flags] --out FILE.parquet"""
    p = argparse.ArgumentParser(prog="python -m bas_env.verl", description="write bas tasks as a verl Parquet dataset")
    p.add_argument("-n", "--num", type=int, default=10, help="tasks 0..N-1 (default 10)")
    p.add_argument("--num-transactions", type=int, default=24)
    p.add_argument("--fault-rate", type=float, default=0.25)
    p.add_argument("--seed", type=int, default=20260826)
    p.add_argument("--split", choices=["train", "test"])
    p.add_argument("--out", required=True, help="the Parquet file to write")
    a = p.parse_args(argv)
    try:
        n = write_parquet(a.out, TaskSpec(a.num_transactions, a.fault_rate, a.seed, a.split), a.num)
    except BasError as err:
        print(f"bas_env.verl: {err}", file=sys.stderr)
        return 2
    print(json.dumps({"rows": n, "out": a.out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
