"""Every program a finder or a rule reads, given few or odd arguments, gets a
verdict: a finder that indexes a missing argument would turn `tmux` or
`php -f` into a crash, and a crash into a refusal of an everyday command."""

from __future__ import annotations

import pytest

from redline.command import check_command
from redline.rules.catalog import _everything
from redline.shell import carriers, embedded, run_carriers, runners, wrappers

FORMS = (
    "{n}", "{n} -", "echo x | {n}", "{n} -c", "{n} -e", "{n} --", "{n} -f", "{n} x",
    "{n} -- x", "{n} -o", "{n} -p", "{n} -i", "{n} -r", "{n} -a", "{n} --help", "{n} =",
    "{n} ''", "{n} -R", "{n} -v", "{n} -n", "{n} -d", "{n} -s", "{n} -b", "{n} -x",
)  # fmt: skip


def _names() -> list[str]:
    names = {*run_carriers.NAMES, *carriers.CARRIER_NAMES, *wrappers.WRAPPERS}
    names |= {*runners.RUNNERS, *embedded.SPEC_NAMES}
    for found in _everything():
        names.update(found.programs or ())
    return sorted(names)


@pytest.mark.parametrize("name", _names())
def test_a_program_with_few_arguments_gets_a_verdict(name: str) -> None:
    for form in FORMS:
        check_command(form.format(n=name))  # no exception
