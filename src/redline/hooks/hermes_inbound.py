"""Hermes's gateway: a message from an unpaired sender starts no run
(F-INBOUND-1).

Hermes fires `pre_gateway_dispatch(event=, gateway=, session_store=)` once
per user message (not for its internal events), before its own
authorisation and pairing. Returning `{"action": "skip", "reason": ...}`
drops the message without a reply; `None` lets it through. For each channel
the policy lists under `inbound.channels` (Hermes's platform names:
`telegram`, `discord`, `slack`...), the sender must be paired with redline
(`redline.inbound.admit`). Hermes logs and ignores a plugin's exception,
which would let the message through, so every failure here is a skip.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

TYPE_CHECKING = False  # not `typing`'s (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


def enforced_channels(environ: Mapping[str, str]) -> tuple[str, ...]:
    """`inbound.channels` of the configured policy (`PolicyError` if it cannot load)."""
    from redline.home import configured_policy, home_dir
    from redline.policy.load import default_policy_path, load_policy

    path = configured_policy(environ) or default_policy_path()
    return load_policy(path, cache_dir=os.path.join(home_dir(environ), "cache")).inbound


def channel_of(event: Any) -> str:
    platform = getattr(getattr(event, "source", None), "platform", None)
    return str(getattr(platform, "value", platform) or "").lower()


def pre_gateway_dispatch(event: Any = None, **kwargs: Any) -> dict[str, Any] | None:
    """Skip a message whose sender is not paired on an enforced channel."""
    del kwargs
    try:
        channel = channel_of(event)
        if channel not in enforced_channels(os.environ):
            return None
        from redline.decision import Verdict
        from redline.inbound import admit

        user = getattr(getattr(event, "source", None), "user_id", None)
        text = getattr(event, "text", None)
        decision = admit(channel, "" if user is None else str(user), text)
        if decision.verdict is Verdict.ALLOW:
            return None
        return {"action": "skip", "reason": f"redline: {decision.reason}"}
    except Exception as error:  # noqa: BLE001 - a failure must drop the message, not pass it
        return {"action": "skip", "reason": f"redline: the sender could not be checked ({error})"}
