"""`redline opinion report`: how the second opinion did, from the log alone.

How often the model was asked and answered, how often it tightened (allow ->
ask, ask -> deny), and, for the calls it sent to the owner (allow -> ask),
whether the owner then agreed (rejected) or not (approved).
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import TYPE_CHECKING, Any

from redline.audit.store import Query

if TYPE_CHECKING:
    from datetime import datetime

    from redline.audit.protocol import Store

FAILED = ("unparsable", "timeout", "http-error", "unreachable", "bad-response")
NOT_ASKED = ("over-budget", "no-key")


def report(store: Store, since: datetime | None = None) -> dict[str, Any]:
    opinions = store.query(Query(kind="opinion", since=since))
    statuses: Counter[str] = Counter()
    steps: Counter[str] = Counter()
    latencies: list[int] = []
    escalated: dict[int, str] = {}
    for entry in opinions:
        details = entry.record.arguments()
        if not isinstance(details, dict):
            continue
        status = str(details.get("status", ""))
        statuses[status] += 1
        if status not in NOT_ASKED and isinstance(details.get("latency_ms"), int):
            latencies.append(details["latency_ms"])
        if status == "tightened":
            step = f"{details.get('before')}->{details.get('after')}"
            steps[step] += 1
            if entry.record.ref is not None and step == "allow->ask":
                escalated[entry.record.ref] = "unanswered"
    if escalated:
        for entry in store.query(Query(kind="outcome", since=since)):
            ref = entry.record.ref
            if ref in escalated and entry.record.outcome:
                escalated[ref] = entry.record.outcome
    answers = Counter(escalated.values())
    total = sum(statuses.values())
    asked = total - sum(statuses[s] for s in NOT_ASKED)
    return {
        "opinions": total,
        "model_asked": asked,
        "answered": statuses["kept"] + statuses["tightened"],
        "tightened": statuses["tightened"],
        "tightened_share": round(statuses["tightened"] / total, 4) if total else 0.0,
        "steps": dict(sorted(steps.items())),
        "failed": {s: statuses[s] for s in FAILED if statuses[s]},
        "not_asked": {s: statuses[s] for s in NOT_ASKED if statuses[s]},
        "median_latency_ms": int(statistics.median(latencies)) if latencies else None,
        "escalated_to_owner": len(escalated),
        "owner_agreed": answers["rejected"],
        "owner_disagreed": answers["approved"],
        "owner_no_answer": answers["timeout"] + answers["unanswered"],
    }


def render(data: dict[str, Any]) -> str:
    if not data["opinions"]:
        return "no second opinions in the log (is `second_opinion` in the policy?)\n"
    share = f"{data['tightened_share'] * 100:.1f}%"
    lines = [
        f"opinions: {data['opinions']} (model asked {data['model_asked']},"
        f" well-formed answers {data['answered']})",
        f"tightened: {data['tightened']} ({share})"
        + "".join(f"  {step}: {n}" for step, n in data["steps"].items()),
        "failed: " + (", ".join(f"{k} {v}" for k, v in data["failed"].items()) or "none"),
        "not asked: " + (", ".join(f"{k} {v}" for k, v in data["not_asked"].items()) or "none"),
        f"median latency: {data['median_latency_ms']} ms",
        f"sent to the owner (allow->ask): {data['escalated_to_owner']}; the owner agreed"
        f" (rejected) {data['owner_agreed']}, disagreed (approved) {data['owner_disagreed']},"
        f" no answer {data['owner_no_answer']}",
    ]
    return "\n".join(lines) + "\n"
