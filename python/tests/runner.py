"""Running verifiers' own eval command (`vf-eval`, verifiers 0.4.0) and reading its traces."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

KEY_VAR = "BAS_TEST_API_KEY"


def run_vf(command: str, args: list[str], out: Path, name: str) -> list[dict]:
    """Runs one of verifiers' commands from this interpreter's environment (the `null` harness
    runs a small chat program under uv, found first on PATH there) and returns the lines of the
    JSONL file `name` it wrote under `out`."""
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", KEY_VAR: "none"}
    done = subprocess.run([str(bin_dir / command), *args, "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    [found] = list(out.glob(f"*/{name}"))
    return [json.loads(line) for line in found.read_text().splitlines() if line.strip()]


def vf_eval(args: list[str], out: Path) -> list[dict]:
    """vf-eval's episodes (traces.jsonl), in task order."""
    episodes = run_vf("vf-eval", [*args, "--client.api-key-var", KEY_VAR, "--no-push"], out, "traces.jsonl")
    return sorted(episodes, key=lambda e: e["task"]["data"]["idx"])


def only_trace(episode: dict) -> dict:
    assert episode["ok"], episode.get("errors")
    [trace] = episode["traces"]
    return trace


def messages(trace: dict) -> list[dict]:
    return [n["message"] for n in trace["nodes"]]


def reply(trace: dict) -> str:
    """The model's reply as the endpoint sent it."""
    [answer] = [m for m in messages(trace) if m["role"] == "assistant"]
    return answer["content"] or ""


def total(trace: dict) -> float:
    """The episode's reward as verifiers sums it: each reward's score times its weight."""
    return sum(r["score"] * r["weight"] for r in trace["rewards"].values())
