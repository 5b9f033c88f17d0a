"""Prints, as JSON, what the newest inspect_ai log under a folder holds: its status, the
samples finished without error, and their mean score. Run with the inspect environment's python."""

import json
import sys
from pathlib import Path

from inspect_ai.log import read_eval_log

logs = sorted(Path(sys.argv[1]).glob("*.eval"), key=lambda p: p.stat().st_mtime)
if not logs:
    print(json.dumps({"status": "none", "done": 0, "reward": None, "log": None}))
    sys.exit(0)
log = read_eval_log(str(logs[-1]))
ok = [s for s in log.samples or [] if s.error is None and s.scores]
scores = [float(next(iter(s.scores.values())).value) for s in ok]
print(
    json.dumps(
        {
            "status": log.status,
            "done": len(ok),
            "reward": sum(scores) / len(scores) if scores else None,
            "log": str(logs[-1]),
        }
    )
)
