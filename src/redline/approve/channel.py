"""What a channel to the owner is, and what it shows of a call."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from redline.approve.pending import Held
from redline.audit.entry import Head
from redline.audit.redact import KnownSecrets, redact_text, redact_value


class Channel(Protocol):
    """A way to reach the owner: told of every held call and every settlement,
    and of the log's head (to keep off the machine)."""

    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def held(self, held: Held) -> None: ...

    async def settled(self, held: Held) -> None: ...

    async def head(self, head: Head | None, why: str) -> None: ...


def shown_text(tool: str, args: Mapping[str, Any], known: KnownSecrets) -> str:
    """What the owner is shown: the exact command, or the tool's arguments."""
    command = args.get("command") or args.get("cmd")
    if isinstance(command, str):
        return redact_text(command, known)
    text = json.dumps(redact_value(dict(args), known), sort_keys=True, ensure_ascii=False)
    return f"{tool} {text}"
