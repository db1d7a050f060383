"""Every row of the table of programs that run programs proves itself."""

from __future__ import annotations

import pytest

from redline.command import check_command
from redline.shell.run_carrier_table import ROUTES, Route

_CARRIED = [
    pytest.param(route, text, id=f"{route.program}:{text}")
    for route in ROUTES
    for text in route.carried
]
_LOOK_ALIKES = [
    pytest.param(text, id=f"{route.program}:{text}")
    for route in ROUTES
    for text in route.look_alikes
]


@pytest.mark.parametrize(("route", "text"), _CARRIED)
def test_a_carried_command_gets_the_rows_verdict(route: Route, text: str) -> None:
    assert str(check_command(text).verdict) == route.verdict


@pytest.mark.parametrize("text", _LOOK_ALIKES)
def test_a_look_alike_stays_allowed(text: str) -> None:
    assert str(check_command(text).verdict) == "allow"


def test_every_row_has_examples_of_both_kinds() -> None:
    assert all(r.carried and r.look_alikes and r.verdict in ("ask", "deny") for r in ROUTES)


def test_the_lazy_index_names_exactly_what_each_finder_module_reads() -> None:
    import importlib

    from redline.shell.run_carriers import LAZY_FINDERS

    for module, names in LAZY_FINDERS.items():
        finders = importlib.import_module(f"redline.shell.{module}").FINDERS
        assert frozenset(finders) == names, module
