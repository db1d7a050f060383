"""The policy's `redline run` settings, published by the service for the
runs it judges (`$REDLINE_HOME/service/run-settings.json`).

A `redline run` that asks the service (`sandbox.served`) needs the policy's
`sandbox` and `env` settings before it sends the call: they decide the
enforcement level, the variables passed (both part of the call, and of its
log entry) and the sandbox's places. Loading the policy would cost what the
service is there to save, so the service writes the settings here, the
owner's file in the service's directory (the gate never lets an agent's
tool write there, and the sandbox hides the home). The file is only a
hint: the run sends the digest of the settings it used, and the service
refuses the call unjudged and unlogged (409) unless they are its own, so a
stale or altered file costs a local judgment, never a looser run.

Imports only `os`, `json` and `redline.digest` (a run's start).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from redline.digest import sha256

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FILE = "run-settings.json"
STALE = 409
"""The service's status for a run whose settings are not the policy's."""


def digest(settings: Mapping[str, Any]) -> str:
    """The settings' digest: SHA-256 of their canonical JSON."""
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return sha256(text.encode()).hexdigest()


def path(service_dir: str) -> str:
    return os.path.join(service_dir, FILE)


def read(service_dir: str) -> dict[str, Any] | None:
    """The published settings (`RunSettings.to_json()`), `None` if there are
    none or they cannot be read."""
    try:
        with open(path(service_dir), encoding="utf-8") as file:
            value = json.load(file)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def write(service_dir: str, settings: Mapping[str, Any]) -> None:
    """Publish `settings` (a temporary file renamed over the old one); the
    caller gives it the public key's mode."""
    target = path(service_dir)
    temporary = f"{target}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(settings, file, sort_keys=True)
    os.replace(temporary, target)


def with_profile(settings: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    """`RunSettings.with_profile` on the published JSON; `None` when the
    policy has no profile `name` (the local judgment then says so)."""
    for profile in settings.get("profiles", ()):
        if profile.get("name") == name:
            network = profile.get("network")
            return {
                **settings,
                "env_pass": [*settings["env_pass"], *profile.get("env_pass", ())],
                "writable": [*settings["writable"], *profile.get("writable", ())],
                "network": settings["network"] if network is None else network,
            }
    return None
