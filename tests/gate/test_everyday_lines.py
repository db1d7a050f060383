"""What the fast paths of a long file's judgement leave out must not hide
anything (issue 18): lines that only print (`runs_later.everyday`), verdicts
remembered per list of commands, and never-run verdicts remembered with the
machine's answers (`gate.script_memo`). Each case hides a hard line among
everyday lines and must be refused as it was before the fast paths."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from redline.decision import Verdict
from redline.gate.actions import ToolCall
from redline.gate.world import World
from redline.gatekeeper import Gate
from redline.runs_later.everyday import is_plain, without_plain

ECHO = '\t@echo "Building the next step"\n'
HIDDEN = {
    "1999th recipe line": ("Makefile", "all:\n" + ECHO * 1998 + "\trm -rf ~\n" + ECHO),
    "behind a variable": ("Makefile", "WIPE = rm -rf ~\nall:\n" + ECHO * 300 + "\t$(WIPE)\n"),
    "line continuation": ("Makefile", "all:\n" + ECHO * 300 + "\techo hi \\\n\t  && rm -rf ~\n"),
    "a $(...) in echo": ("Makefile", "all:\n" + ECHO * 300 + '\techo "$$(rm -rf ~)"\n'),
    "make's $(shell)": ("Makefile", "all:\n" + ECHO * 300 + "\techo $(shell rm -rf ~)\n"),
    "echo into a hook": ("Makefile", "all:\n" + ECHO * 300 + '\techo "rm -rf ~" >> .git/hooks/x\n'),
    "a heredoc's body": ("Makefile", "all:\n\tbash <<EOF\n" + ECHO * 20 + "\trm -rf ~\n\tEOF\n"),
    "justfile": ("justfile", "all:\n" + "    echo hi\n" * 300 + "    rm -rf ~\n"),
    "JSON scripts entry": (
        "package.json",
        '{"scripts": {"build": "echo hi", "test": "echo ok", "postinstall": "rm -rf ~"}}',
    ),
    "Python f-string": (
        "setup.py",
        "import os, subprocess\nhome = os.path.expanduser('~')\n"
        + "subprocess.run(['echo', 'hi'])\n" * 50
        + "subprocess.run(f'rm -rf {home}', shell=True)\n",
    ),
    "CI steps": (
        ".github/workflows/ci.yml",
        "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n"
        + "      - run: echo hi\n" * 100
        + "      - run: rm -rf ~\n",
    ),
}


class Disk(World):
    """Files and folders that exist, changed by the test between calls."""

    def __init__(self, files: Mapping[str, str], links: Mapping[str, str]) -> None:
        self.files, self.links = dict(files), dict(links)

    def read_script(self, path: str) -> str | None:
        return self.files.get(path)

    def resolve(self, path: str) -> str | None:
        return self.links.get(path, path if path.startswith("/srv/") else None)


def _gate(tmp_path: Path, world: World | None = None) -> Gate:
    return Gate(None, home="/home/me", redline_home=tmp_path / "redline", world=world)


def _write(gate: Gate, path: str, text: str) -> tuple[str, list[str]]:
    decision = gate.check(ToolCall("Write", {"file_path": path, "content": text}))
    return str(decision.verdict), sorted(set(decision.rule_ids))


@pytest.mark.parametrize("name", HIDDEN)
def test_a_hard_line_among_everyday_lines_is_refused(name: str, tmp_path: Path) -> None:
    path, text = HIDDEN[name]
    gate = _gate(tmp_path)
    first = _write(gate, "/srv/app/" + path, text)
    assert first[0] == "deny" and "later.hardline" in first[1]
    # Written again (the remembered verdicts): the same.
    again = "# again\n" + text if path == "Makefile" else text
    assert _write(gate, "/srv/app/" + path, again) == first


def test_lines_that_only_print_are_left_out_and_no_other() -> None:
    plain = ['echo "Building the project"', "echo -n done", "true", ":", "printf done", "echo"]
    kept = [
        "echo hi > /dev/sda", "echo $HOME", "printf -v PATH x", "echo a | sh", "echo `id`",
        'echo "$(rm -rf ~)"', "echo 8787", "echo http_proxy=http://127.0.0.1:8787",
        "echo redline approve", "rm -rf ~", "mkdir -p build", "echo *", "echo ~", "echo a; rm x",
        "echo 'a'\"b\"'", "echo a && rm -rf ~", "echo \\", "eval echo", "echo ${x}",
    ]  # fmt: skip
    assert [line for line in plain if not is_plain(line)] == []
    assert [line for line in kept if is_plain(line)] == []
    # After a line that goes on (`a |`), and in a text with a heredoc, nothing is left out.
    assert without_plain(["curl x |", "echo hi", "sh"]) == ["curl x |", "echo hi", "sh"]
    assert without_plain(["cat <<EOF", "echo hi", "EOF"]) == ["cat <<EOF", "echo hi", "EOF"]
    assert without_plain(["echo hi", "make", "echo hi"]) == ["make"]


def test_the_same_commands_are_judged_again_in_another_folder(tmp_path: Path) -> None:
    gate = _gate(tmp_path)
    text = "all:\n" + ECHO * 20 + "\trm -rf *\n"
    assert _write(gate, "/srv/app/Makefile", text)[0] == "ask"
    assert _write(gate, "/home/me/Makefile", text)[0] == "deny"


def test_a_remembered_verdict_is_not_reused_once_the_machine_answers_otherwise(
    tmp_path: Path,
) -> None:
    # The same recipes written twice; between the writes, a `conftest.py`
    # that reads the owner's key appears where pytest finds it: refused then.
    world = Disk({}, {})
    gate = _gate(tmp_path, world)
    text = "test:\n" + "\tpytest -q tests\n" * 400
    assert _write(gate, "/srv/app/Makefile", text)[0] == "allow"
    world.files["/srv/app/tests/conftest.py"] = "print(open('/home/me/.ssh/id_rsa').read())\n"
    assert _write(gate, "/srv/app/Makefile", "# v2\n" + text) == (
        "deny",
        ["never-run.credentials"],
    )
    del world.files["/srv/app/tests/conftest.py"]
    assert _write(gate, "/srv/app/Makefile", "# v3\n" + text)[0] == "allow"


def test_another_threads_depth_never_hides_a_file() -> None:
    """The depth of files written by files is per thread: a process judging
    several calls at once (Hermes runs tools in threads) must not see
    another call's depth and judge nothing."""
    import threading

    from redline.runs_later import judge

    text = "all:\n\trm -rf ~\n"
    assert judge.judge("Makefile", text, "/srv/app")
    inside = threading.Event()
    leave = threading.Event()

    def deep() -> None:
        judge._depths[threading.get_ident()] = judge.MAX_DEPTH
        inside.set()
        leave.wait(10)
        del judge._depths[threading.get_ident()]

    other = threading.Thread(target=deep)
    other.start()
    try:
        assert inside.wait(10)
        assert judge.judge("Makefile", text + "\n", "/srv/app")
    finally:
        leave.set()
        other.join(10)


PAST_THE_PART_READ = {
    "a makefile's recipe": ("Makefile", "all:\n" + "\techo hello world\n" * 20000 + "\trm -rf ~\n"),
    "after a long comment": ("Makefile", "# " + "x" * 300_000 + "\nall:\n\trm -rf ~\n"),
    "git's config": (".git/config", "# " + "x" * 300_000 + "\n[core]\n\tpager = rm -rf ~\n"),
}


@pytest.mark.parametrize("name", sorted(PAST_THE_PART_READ))
def test_what_lies_past_the_part_the_judge_reads_is_not_allowed(name: str, tmp_path: Path) -> None:
    """The judge reads a file's first 256 KB: a file longer than that is asked
    (the rest is unseen), never allowed for what its start holds."""
    relative, text = PAST_THE_PART_READ[name]
    gate = _gate(tmp_path)
    decision = gate.check(ToolCall("Write", {"file_path": f"/srv/app/{relative}", "content": text}))
    assert decision.verdict is not Verdict.ALLOW


def test_a_reader_that_fails_does_not_lower_a_hard_line(tmp_path: Path) -> None:
    """500 nested parentheses make the justfile reader fail: the file is
    asked, and a hard line on any of its lines is still denied."""
    deep = "x := " + "(" * 500 + "'a'" + ")" * 500 + "\n"
    gate = _gate(tmp_path)
    wipe = ToolCall(
        "Write", {"file_path": "/srv/app/justfile", "content": deep + "all:\n    rm -rf ~\n"}
    )
    fine = ToolCall(
        "Write", {"file_path": "/srv/app/justfile", "content": deep + "all:\n    echo hi\n"}
    )
    assert gate.check(wipe).verdict is Verdict.DENY
    assert gate.check(fine).verdict is Verdict.ASK
