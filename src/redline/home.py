"""Where redline keeps its files: `$REDLINE_HOME`, default `~/.redline`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def redline_home(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    configured = env.get("REDLINE_HOME", "").strip()
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".redline"
