"""NeMo Gym's door, `bas reward-server`'s /seed_session and /verify, driven as NeMo Gym's clients
drive it: the body NeMo Gym 0.7's simple agent posts (responses_api_agents/simple_agent/app.py:
the row's model_dump() | {"response": ...}, the answer validated as a BaseVerifyResponse), and
verifiers 0.4.0's NeMo Gym taskset run by `vf-eval`. Rewards must equal `bas score`'s."""

from __future__ import annotations

import json
import urllib.request

from bas_env import TaskSpec, load_tasks

from .conftest import bas_score
from .runner import only_trace, reply, vf_eval


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as answer:
        return json.loads(answer.read())


def nemo_row(task) -> dict:
    return {"responses_create_params": {"input": task.prompt}, "label": task.label}


def responses_object(text: str) -> dict:
    """A Responses object as NeMo Gym's model servers return one: reasoning, then the message."""
    return {
        "id": "resp_1", "object": "response", "created_at": 0.0, "model": "m", "status": "completed",
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [
            {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking"}]},
            {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "annotations": []}]},
        ],
    }


def test_the_simple_agent_s_calls_get_bas_score_s_rewards(reward_server, graded) -> None:
    for task, text, want in graded:
        row = nemo_row(task)
        assert post(f"{reward_server}/seed_session", row) == {}
        result = post(f"{reward_server}/verify", row | {"response": responses_object(text)})
        # BaseVerifyResponse: the request, then the reward; numeric fields are NeMo Gym's metrics.
        assert result["responses_create_params"] == row["responses_create_params"]
        assert result["response"] == responses_object(text)
        assert result["reward"] == want["reward"]
        assert {k: result[k] for k in want["rewards"]} == want["rewards"]
        assert {k: result[k] for k in want["metrics"]} == want["metrics"]


def test_verifiers_nemo_gym_taskset_gets_bas_score_s_rewards(bas, serve, reward_server, tmp_path) -> None:
    spec = TaskSpec(8, 0.35, 7)
    tasks = load_tasks(spec, 3)
    dataset = tmp_path / "bas-nemo.jsonl"
    dataset.write_text("".join(json.dumps(nemo_row(t)) + "\n" for t in tasks))
    config = tmp_path / "bas-nemo.toml"
    config.write_text(
        f'model = "any"\n[client]\nbase_url = "{serve}"\n[select]\nlimit = 3\n'
        f'[env.taskset]\nid = "nemo-gym"\ndataset = "{dataset}"\n'
        f'[env.taskset.task]\nresources_url = "{reward_server}"\n'
        '[env.agent.harness]\nid = "null"\n[env.agent.runtime]\ntype = "subprocess"\n'
    )
    traces = [only_trace(e) for e in vf_eval(["@", str(config)], tmp_path / "vf")]
    want = bas_score(bas, tmp_path, spec, 3, [(i, reply(t)) for i, t in enumerate(traces)])
    for trace, w in zip(traces, want):
        assert trace["rewards"] == {"nemo_gym": {"score": w["reward"], "weight": 1.0}}
        assert {k: trace["metrics"][k] for k in [*w["rewards"], *w["metrics"]]} == {**w["rewards"], **w["metrics"]}
