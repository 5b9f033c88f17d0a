"""bas (the BAS reconciliation benchmark) for the Python frameworks that train and evaluate
models: a verifiers environment, a verl reward and dataset, a TRL reward. Tasks come from
`bas gen` and grades from `bas reward-server`, the grader of `bas score`: nothing here
re-implements either."""

from .grader import Grader, default_grader, grade
from .locate import BasError, bas_command
from .tasks import BasTask, TaskSpec, iter_tasks, load_tasks
from .trl import bas_reward
from .verl import compute_score, verl_rows, write_parquet


def load_environment(*args, **kwargs):  # type: ignore[no-untyped-def]
    """The verifiers environment (see bas_env.verifiers_env.load_environment)."""
    from .verifiers_env import load_environment as load

    return load(*args, **kwargs)


__all__ = [
    "BasError",
    "BasTask",
    "Grader",
    "TaskSpec",
    "bas_command",
    "bas_reward",
    "compute_score",
    "default_grader",
    "grade",
    "iter_tasks",
    "load_environment",
    "load_tasks",
    "verl_rows",
    "write_parquet",
]
