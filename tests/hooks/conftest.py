"""Factories for hook tests: an isolated environment (REDLINE_HOME and HOME in
tmp dirs, passed explicitly to the hook; the real ~ is never touched)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hookkit import Env


@pytest.fixture
def make_env(tmp_path: Path) -> Callable[..., Env]:
    def make(**extra: str) -> Env:
        home = tmp_path / "home"
        home.mkdir(exist_ok=True)
        env = {
            "REDLINE_HOME": str(tmp_path / "redline"),
            "HOME": str(home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        }
        env.update(extra)
        return env

    return make


@pytest.fixture
def env(make_env: Callable[..., Env]) -> Env:
    return make_env()
