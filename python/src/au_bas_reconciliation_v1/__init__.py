"""The verifiers plugin module for `vf-eval au-bas-reconciliation-v1`: verifiers imports the
module named after the taskset id and takes the Taskset subclass it exports."""

from bas_env.verifiers_env import BasTaskset, load_environment

__all__ = ["BasTaskset", "load_environment"]
