"""The peers' stand-in grade: the four BAS figures of the reply's <answer> against the key.

bas grades far more than this (fault flags, partial credit; see docs/rules.md). The peers only
need a scorer of about the same weight, so that each tool does some work per rollout; the
reply text each peer recorded is what the comparison is about, not this reward.
"""

import json
import re
from decimal import Decimal, InvalidOperation

ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S)
FIELDS = ("G1", "1A", "1B", "net")


def figures_match(reply: str, key: dict) -> float:
    """1.0 when the last <answer> block's G1, 1A, 1B and net equal the key's, else 0.0."""
    found = ANSWER.findall(reply or "")
    if not found:
        return 0.0
    try:
        answer = json.loads(found[-1])
        return float(all(Decimal(str(answer[f])) == Decimal(key[f]) for f in FIELDS))
    except (ValueError, KeyError, TypeError, InvalidOperation):
        return 0.0


def read_tasks(path: str) -> list[dict]:
    """The tasks `bas gen --format jsonl` wrote: one JSON object a line."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
