"""The second opinion's risk summary as the owner sees it with a held call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def risk_line(opinion: Any) -> str | None:
    """The second opinion's one-line risk summary for the owner (F-APPROVE-6),
    from a held call's `opinion`; `None` when no model was asked. The words
    after the colon are the model's, never redline's."""
    if not isinstance(opinion, Mapping):
        return None
    model = str(opinion.get("model") or "model")
    status = str(opinion.get("status") or "")
    summary = " ".join(str(opinion.get("summary") or "").split())[:200]
    if status == "tightened":
        before, after = opinion.get("before"), opinion.get("after")
        return f"second opinion ({model}, raised {before} to {after}): {summary}"
    if status == "kept":
        return f"second opinion ({model}): {summary}"
    detail = str(opinion.get("detail") or status)
    return f"second opinion ({model}): none, {status} ({detail})"
