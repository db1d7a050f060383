"""Where redline keeps its files: `$REDLINE_HOME`, default `~/.redline`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


def home_dir(environ: Mapping[str, str] | None = None) -> str:
    """The directory as a string; importing nothing, for the hook's hot path."""
    env = os.environ if environ is None else environ
    configured = env.get("REDLINE_HOME", "").strip()
    if configured:
        return os.path.expanduser(configured)
    return os.path.join(os.path.expanduser("~"), ".redline")


def redline_home(environ: Mapping[str, str] | None = None) -> Path:
    from pathlib import Path

    return Path(home_dir(environ))
