"""bas for TRL's GRPOTrainer: a reward function over a batch of completions.

TRL 1.16 calls each reward function as `f(prompts=..., completions=..., completion_ids=...,
**columns)`, where `columns` are the dataset's other columns (here `label`, as
`bas gen --format dataset` writes it) plus `trainer_state` and `log_extra`/`log_metric`;
a completion is a string for text prompts and a list with one assistant message for
conversational ones. It expects one float (or None) per completion.
"""

from __future__ import annotations

from typing import Any

from .grader import default_grader


def completion_text(completion: Any) -> str:
    """The text of one completion: a string, or the content of the last message of a list."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        content = completion[-1].get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    raise TypeError(f"a completion must be a string or a list of messages, got {type(completion).__name__}")


def bas_reward(
    prompts: list[Any], completions: list[Any], completion_ids: list[Any] | None = None, **columns: Any
) -> list[float]:
    """bas's reward (0.6 bas_correct + 0.4 fault_audit) per completion, graded by bas; the
    tasks are named by the `label` column. With TRL's `log_metric` callback, the batch means
    of bas_correct, fault_audit and the metrics are logged too."""
    labels = columns.get("label")
    if labels is None and isinstance(columns.get("extra_info"), list):
        # A verl Parquet file loaded as the dataset: the label is inside extra_info.
        labels = [e.get("label") if isinstance(e, dict) else None for e in columns["extra_info"]]
    if not isinstance(labels, list) or len(labels) != len(completions):
        raise ValueError(
            "bas_reward needs the dataset's `label` column, one per completion: train on "
            "`bas gen --format dataset` (or a verl Parquet file with extra_info.label)"
        )
    grades = default_grader().grade(list(labels), [completion_text(c) for c in completions])
    log_metric = columns.get("log_metric")
    if callable(log_metric) and grades:
        for part in ("rewards", "metrics"):
            for name in grades[0][part]:
                log_metric(f"bas/{name}", sum(float(g[part][name]) for g in grades) / len(grades))
    return [float(g["reward"]) for g in grades]
