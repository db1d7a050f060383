"""Launchers the analysis follows to what runs: runners (`uv run`), `env -S`
in every spelling, git settings that run commands, `su -lc`, bare `system`
calls in Perl and Ruby, and readers of process substitutions (F-SHELL-2/3)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.shell.analysis import analyze
from redline.shell.model import DYNAMIC

Argvs = Callable[..., list[tuple[str, ...]]]
RM = ("rm", "-rf", "/")


@pytest.mark.parametrize(
    "command",
    [
        "uv run rm -rf /",
        "uv run --with x -p 3.12 rm -rf /",
        "poetry run rm -rf /",
        "poetry -C dir run rm -rf /",
        "pipenv run rm -rf /",
        "conda run -n base rm -rf /",
        "bundle exec rm -rf /",
        "npm exec -- rm -rf /",
        "mise exec node@20 -- rm -rf /",
        "direnv exec . rm -rf /",
        "nix develop -c rm -rf /",
        "nix-shell -p hello --run 'rm -rf /'",
        "op run --env-file .env -- rm -rf /",
        "aws-vault exec prod -- rm -rf /",
        "gosu root rm -rf /",
        "su-exec root rm -rf /",
        "chronic rm -rf /",
        "eatmydata rm -rf /",
        "setpriv --reuid 0 rm -rf /",
        "numactl -N 0 rm -rf /",
        "env -S 'rm -rf /'",
        'env -S"rm -rf /"',
        "env -iS 'rm -rf /'",
        "env -vS 'rm -rf /'",
        "env --split-string='rm -rf /'",
        "su -lc 'rm -rf /'",
        "su -s /bin/sh -c 'rm -rf /'",
        "runuser -u root -c 'rm -rf /'",
        "script -qc 'rm -rf /' /dev/null",
        "git -c core.pager='rm -rf /' log",
        "git -c core.sshCommand='rm -rf /' fetch",
        "git -c credential.helper='!rm -rf /' fetch",
        "git -c filter.x.smudge='rm -rf /' checkout",
        "git -c pager.log='rm -rf /' log",
        "perl -e 'exec \"rm -rf /\"'",
        'perl -e \'system "rm", "-rf", "/"\'',
        "ruby -e 'system \"rm -rf /\"'",
        "echo 'rm -rf /' | tee >(sh)",
        "bash -euxo pipefail -c 'rm -rf /'",
        "bash -o pipefail -c 'rm -rf /'",
        "bash -c -x 'rm -rf /'",
        "ssh host -- rm -rf /",
        "ssh host -t rm -rf /",
        "ssh host -p 22 'rm -rf /'",
    ],
)
def test_launched_commands_are_found(argvs: Argvs, command: str) -> None:
    assert RM in argvs(command)


@pytest.mark.parametrize(
    "command",
    [
        "uv run pytest",
        "nix-shell",
        "nix develop",
        "git -c core.pager=less log",
        "env -u S ls",
        "env FOO=-S ls",
        "perl -e 'print \"system x\"'",
        "poetry install",
    ],
)
def test_no_command_is_invented(argvs: Argvs, command: str) -> None:
    assert not any(argv[:1] == ("rm",) for argv in argvs(command))
    assert len(argvs(command)) <= 2


@pytest.mark.parametrize(
    ("command", "reader", "feeder"),
    [
        ("curl x > >(bash)", "bash", "curl"),
        ("curl x | tee >(bash) > /dev/null", "bash", "curl"),
        ("exec 3< <(curl x); bash <&3", "bash", "curl"),
        ("exec 3< <(curl x); source /dev/fd/3", "source", "curl"),
    ],
)
def test_readers_of_substitutions_have_their_feeder_upstream(
    command: str, reader: str, feeder: str
) -> None:
    analysis = analyze(command)
    assert analysis.errors == ()
    found = {inv.name: inv for inv in analysis.invocations}
    assert found[feeder].index in found[reader].upstream


def test_a_writer_is_not_fed_by_what_reads_it() -> None:
    analysis = analyze("curl x | tee >(sha256sum) > f")
    tee, summer = analysis.invocations[1], analysis.invocations[2]
    assert summer.index not in tee.upstream
    assert tee.index in summer.upstream


@pytest.mark.parametrize(
    "command",
    [
        "xargs -I{} sh -c '{}' < f",
        "xargs -n 1 -I{} sh -c '{}' < f",
        "xargs -0 -P 4 -I % bash -c '%' < f",
        "xargs -i sh -c '{} && ls' < f",
        "xargs --replace=@ @ --version < f",
        "xargs -I{} {} --version < f",
    ],
)
def test_xargs_input_run_as_code_is_computed_at_run_time(command: str) -> None:
    analysis = analyze(command)
    assert any(inv.argv and DYNAMIC in inv.argv[0].value for inv in analysis.invocations)


@pytest.mark.parametrize(
    "command", ["xargs -I{} sh -c 'wc -l {}' < f", "xargs -I{} mv {} {}.bak < f", "xargs rm < f"]
)
def test_xargs_input_as_arguments_stays_an_argument(command: str) -> None:
    analysis = analyze(command)
    assert not any(inv.argv and DYNAMIC in inv.argv[0].value for inv in analysis.invocations)


@pytest.mark.parametrize(
    ("command", "inner"),
    [
        ("python -m twine upload dist/x", ("twine", "upload", "dist/x")),
        ("python3 -u -mpip install x", ("pip", "install", "x")),
        ("python -W ignore -m awscli s3 ls", ("aws", "s3", "ls")),
        ("toybox rm -rf /", RM),
        ("coreutils --coreutils-prog=rm -rf /", RM),
    ],
)
def test_modules_and_multi_call_binaries_run_the_program(
    argvs: Argvs, command: str, inner: tuple[str, ...]
) -> None:
    assert argvs(command)[-1] == inner


def test_a_module_that_is_no_program_stays_python(argvs: Argvs) -> None:
    assert argvs("python -m http.server 8000") == [("python", "-m", "http.server", "8000")]
