"""An inspect_ai task over the prompts `bas gen --format jsonl` wrote: one completion per sample.

    inspect eval bench/peers/inspect_bas.py -T tasks=tasks.jsonl \
        --model openai-api/peer/MODEL -M stream=false   (PEER_BASE_URL, PEER_API_KEY)
"""

from figures import figures_match, read_tasks
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState, generate

ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser}


def to_sample(row: dict) -> Sample:
    messages = [ROLES[m["role"]](content=m["content"]) for m in row["prompt"]]
    return Sample(id=row["index"], input=messages, metadata={"key": row["key"]["bas"]})


@scorer(metrics=[accuracy()])
def bas_figures():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=figures_match(state.output.completion, state.metadata["key"]))

    return score


@task
def bas_peer(tasks: str) -> Task:
    return Task(
        dataset=MemoryDataset([to_sample(r) for r in read_tasks(tasks)]),
        solver=generate(),
        scorer=bas_figures(),
    )
