"""A verifiers (0.4.0, `verifiers.v1`) taskset over the prompts `bas gen --format jsonl` wrote.

Imported by id: `vf-eval bas-peer-taskset --env.taskset.tasks FILE --env.agent.harness.id null`
with this folder on PYTHONPATH. The `null` harness is verifiers' tool-less chat program: one
model call per rollout, which is the work bas does here.
"""

import verifiers.v1 as vf
from figures import figures_match, read_tasks


class BasPeerData(vf.TaskData):
    key: dict


class BasPeerTask(vf.Task[BasPeerData]):
    @vf.reward(weight=1.0)
    async def figures(self, trace: vf.Trace) -> float:
        return figures_match(trace.last_reply, self.data.key)


class BasPeerConfig(vf.TasksetConfig):
    tasks: str = "tasks.jsonl"
    """The tasks file `bas gen --format jsonl` wrote."""


class BasPeerTaskset(vf.Taskset[BasPeerTask, BasPeerConfig]):
    def load(self) -> list[BasPeerTask]:
        rows = read_tasks(self.config.tasks)
        # The system message goes in system_prompt: the null harness sends it first.
        return [
            BasPeerTask(
                BasPeerData(
                    id=str(r["index"]),
                    system_prompt=r["prompt"][0]["content"],
                    prompt=r["prompt"][1]["content"],
                    key=r["key"]["bas"],
                ),
                self.config.task,
            )
            for r in rows
        ]


__all__ = ["BasPeerTaskset"]
