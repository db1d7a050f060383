"""Under CI (`CI` set, as `.ci/run` does), a test that skips fails instead:
a missing PostgreSQL or chromium must fail the run, not pass it unnoticed."""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[Any]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.skipped and not hasattr(report, "wasxfail") and under_ci():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, which must run every test: {reason}"
    return report
