"""verifiers' door, with verifiers 0.4.0 itself: the environment it builds, and its own eval
runner (`vf-eval`, as the original environment's README runs it) against `bas serve`, whose
rewards and metrics must be what `bas score` gives the same replies."""

from __future__ import annotations

import verifiers.v1 as vf

from bas_env import TaskSpec, load_environment, load_tasks
from bas_env.verifiers_env import BasTaskset

from .conftest import bas_score
from .runner import messages, only_trace, reply, run_vf, total, vf_eval


def test_load_environment_builds_a_single_turn_env_over_bas_s_tasks(tasks) -> None:
    env = load_environment(num_transactions=8, fault_rate=0.35, seed=7, num_examples=4)
    assert isinstance(env, vf.SingleAgentEnv) and isinstance(env.taskset, BasTaskset)
    assert env.config.agent.harness.id == "null"  # one completion, no tools
    assert env.taskset.bounded
    got = list(env.taskset)
    assert [t.data.label for t in got] == [t.label for t in tasks]
    for vt, t in zip(got, tasks):
        assert vt.key == t.label and vt.data.answer == t.answer and vt.data.info == t.info(None)
        assert [{"role": "system", "content": vt.data.system_prompt}, {"role": "user", "content": vt.data.prompt}] == t.prompt
    rewards = {fn.__name__: fn._vf_weight for fn in got[0].hooks("reward")}
    assert rewards == {"bas_correct": 0.6, "fault_audit": 0.4}
    assert [fn.__name__ for fn in got[0].hooks("metric")] == ["bas_metrics"]


def test_an_unbounded_taskset_reads_only_what_is_taken() -> None:
    env = load_environment(num_transactions=4)
    assert not env.taskset.bounded
    assert [t.data.idx for t in env.taskset.take(3)] == [0, 1, 2]


def test_vf_eval_rewards_equal_bas_score(bas, serve, tmp_path) -> None:
    episodes = vf_eval(
        ["au-bas-reconciliation-v1", "-n", "3", "-m", "any", "--client.base-url", serve,
         "--env.agent.harness.id", "null", "--env.agent.runtime.type", "subprocess",
         "--env.taskset.num-transactions", "8", "--env.taskset.fault-rate", "0.35", "--env.taskset.seed", "7"],
        tmp_path / "vf",
    )
    assert [e["task"]["data"]["idx"] for e in episodes] == [0, 1, 2]
    traces = [only_trace(e) for e in episodes]
    spec = TaskSpec(8, 0.35, 7)
    for trace, task in zip(traces, load_tasks(spec, 3)):
        # The model was sent exactly bas's prompt.
        sent = [{"role": m["role"], "content": m["content"]} for m in messages(trace) if m["role"] != "assistant"]
        assert sent == task.prompt
    want = bas_score(bas, tmp_path, spec, 3, [(i, reply(t)) for i, t in enumerate(traces)])
    for trace, w in zip(traces, want):
        assert {k: r["score"] for k, r in trace["rewards"].items()} == w["rewards"]
        assert {k: r["weight"] for k, r in trace["rewards"].items()} == {"bas_correct": 0.6, "fault_audit": 0.4}
        assert trace["metrics"] == w["metrics"]
        assert total(trace) == w["reward"]


def test_vf_validate_finds_every_key_valid(tmp_path) -> None:
    """The seed's model-free check: the key as a reply earns 1 (gold), no reply earns 0 (noop)."""
    rows = run_vf("vf-validate", ["au-bas-reconciliation-v1", "-n", "3", "--runtime.type", "subprocess",
                                  "--taskset.num-transactions", "8", "--taskset.fault-rate", "0.35"], tmp_path, "results.jsonl")
    assert sorted(r["index"] for r in rows) == [0, 1, 2]
    assert all(r["valid"] and r["gold"]["valid"] and r["noop"]["reward"] == 0 for r in rows), rows
