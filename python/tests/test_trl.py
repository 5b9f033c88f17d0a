"""TRL's door: bas_reward called as TRL 1.16's GRPOTrainer calls a reward function (read from
trl/trainer/grpo_trainer.py, `_calculate_rewards`: keyword arguments prompts, completions,
completion_ids, every other dataset column as a list, trainer_state, log_extra, log_metric; one
float or None back per completion). TRL itself is not installed here: it needs torch."""

from __future__ import annotations

import pytest

from bas_env import BasError, bas_reward


def trl_call(prompts, completions, columns, metrics) -> list:
    reward_kwargs = {key: [row[key] for row in columns] for key in columns[0]}
    reward_kwargs["trainer_state"] = object()
    reward_kwargs["log_extra"] = lambda column, values: None
    reward_kwargs["log_metric"] = lambda name, value: metrics.setdefault(name, []).append(value)
    out = bas_reward(prompts=prompts, completions=completions, completion_ids=[[1, 2]] * len(completions), **reward_kwargs)
    assert isinstance(out, list) and len(out) == len(prompts) and all(isinstance(x, float) for x in out)
    return out


def test_conversational_and_text_completions_get_bas_score_s_reward(graded) -> None:
    metrics: dict[str, list[float]] = {}
    # Conversational: the dataset of bas gen --format dataset (prompt messages, label).
    prompts = [t.prompt for t, _, _ in graded]
    completions = [[{"role": "assistant", "content": reply}] for _, reply, _ in graded]
    columns = [{"prompt": t.prompt, "label": t.label, "prompt_text": "..."} for t, _, _ in graded]
    want = [s["reward"] for _, _, s in graded]
    assert trl_call(prompts, completions, columns, metrics) == want
    assert metrics["bas/bas_correct"] == [sum(s["rewards"]["bas_correct"] for *_, s in graded) / len(graded)]
    assert set(metrics) == {f"bas/{k}" for k in ["bas_correct", "fault_audit", "bas_label_accuracy", "fault_precision",
                                                  "fault_recall", "num_flagged", "parsed"]}
    # Standard (text) prompts, from a verl Parquet file loaded as the dataset: the label is in extra_info.
    text = [reply for _, reply, _ in graded]
    columns = [{"prompt": "p", "extra_info": {"label": t.label, "index": t.index}} for t, _, _ in graded]
    assert trl_call(["p"] * len(text), text, columns, {}) == want


def test_without_labels_it_says_which_column_it_needs(tasks) -> None:
    with pytest.raises(ValueError, match="needs the dataset's `label` column"):
        bas_reward(prompts=["p"], completions=["c"], completion_ids=None)
    with pytest.raises(TypeError, match="a completion must be a string or a list of messages"):
        bas_reward(prompts=["p"], completions=[42], label=[tasks[0].label])
    with pytest.raises(BasError, match=r"refused the grading request \(400\): item 0: label"):
        bas_reward(prompts=["p"], completions=["c"], label=["bas:nope"])
