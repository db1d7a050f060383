"""The holes of the attack round on `redline run` (`tests/corpus/attack_run_open.md`),
each shown closed the way it was found, through `harness.py` (the sandbox
alone), in a fake home, with marker files only."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from redline.decision import Verdict
from redline.sandbox.landlock import abi_version as landlock_abi
from redline.sandbox.level import probe
from redline.sandbox.plan import workspace_refusal
from redline.sandbox.run import prepare
from tests.sandbox.test_enforcement import Box

GIT_PEOPLE = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
}  # fmt: skip


@pytest.fixture
def box(tmp_path: Path) -> Box:
    found = probe("namespaces")
    if found.name != "namespaces":
        pytest.skip(f"no namespace sandbox here: {found.why}")
    return Box(tmp_path, "namespaces")


def _python(box: Box, script: str) -> subprocess.CompletedProcess[str]:
    return box.run(sys.executable, "-c", script)


def test_h1_a_guard_folder_cannot_be_renamed_and_made_again(box: Box) -> None:
    (box.ws / ".claude").mkdir()
    (box.ws / ".claude" / "settings.json").write_text('{"orig":1}')
    done = _python(
        box,
        "import os\n"
        "for d in ('.claude', '.codex'):\n"
        "    try:\n"
        "        os.rename(d, d + '-old'); os.mkdir(d)\n"
        "        open(d + '/settings.json', 'w').write('MARKER')\n"
        "        print(d, 'swapped')\n"
        "    except OSError as error:\n"
        "        print(d, error.errno)\n",
    )
    assert done.stdout.split() == [".claude", "16", ".codex", "16"]  # EBUSY
    assert (box.ws / ".claude" / "settings.json").read_text() == '{"orig":1}'
    # `.codex` was missing: made empty, so that it could be a mount point
    assert sorted(p.name for p in box.ws.iterdir()) == [".claude", ".codex", ".gemini", ".hermes"]
    assert not list((box.ws / ".codex").iterdir())


def test_h1_a_gate_home_inside_a_writable_place_cannot_be_swapped(box: Box) -> None:
    nested = box.tmp / "x" / "gate" / "rh"
    nested.mkdir(parents=True)
    (nested / "policy.yaml").write_text("version: 1\n")
    box.env["REDLINE_HOME"] = str(nested)
    done = _python(
        box,
        "import os, sys\n"
        f"top = {str(box.tmp / 'x')!r}\n"
        "try:\n"
        "    os.rename(top, top + '.old'); os.makedirs(top + '/gate/rh')\n"
        "    open(top + '/gate/rh/policy.yaml', 'w').write('MARKER')\n"
        "except OSError as error:\n"
        "    print(error.errno)\n",
    )
    assert done.stdout == "16\n"
    assert (nested / "policy.yaml").read_text() == "version: 1\n"
    assert not (box.tmp / "x.old").exists()


def test_h2_git_config_and_hooks_cannot_be_planted_and_git_still_works(box: Box) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(box.ws)], check=True)
    (box.ws / "a.txt").write_text("a\n")
    box.env.update(GIT_PEOPLE)
    plant = (
        "import os\n"
        "for how in ('config', 'hook', 'rename'):\n"
        "    try:\n"
        "        if how == 'config':\n"
        "            open('.git/config', 'a').write('[core]\\n\\tfsmonitor = MARKER\\n')\n"
        "        elif how == 'hook':\n"
        "            open('.git/hooks/post-checkout', 'w').write('MARKER')\n"
        "        else:\n"
        "            os.rename('.git', '.git-old')\n"
        "        print(how, 'planted')\n"
        "    except OSError as error:\n"
        "        print(how, error.errno)\n"
    )
    script = (
        f'{sys.executable} -c "$PLANT"; '
        "git add a.txt && git commit -qm one && git checkout -qb side && "
        "echo b >> a.txt && git commit -qam two && git status --short && echo git-ok; "
        "git config --local x.y z 2>/dev/null || echo config-refused"
    )
    box.env["PLANT"] = plant
    done = box.sh(script)
    assert done.stdout.split("\n") == [
        "config 30",
        "hook 30",
        "rename 16",
        "git-ok",
        "config-refused",
        "",
    ]  # EROFS, EROFS, EBUSY
    config = (box.ws / ".git" / "config").read_text()
    assert "MARKER" not in config
    assert not (box.ws / ".git" / "hooks" / "post-checkout").exists()
    log = subprocess.run(["git", "-C", str(box.ws), "log", "--format=%s", "side"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert log.stdout.split() == ["two", "one"]


@pytest.mark.parametrize("level", ["namespaces", "landlock"])
def test_h8_the_owners_service_sockets_are_out_of_reach(tmp_path: Path, level: str) -> None:
    found = probe(level)
    if found.name != level:
        pytest.skip(f"no {level} sandbox here: {found.why}")
    box = Box(tmp_path, level)
    runtime, agent = tmp_path / "run-user", tmp_path / "ssh-agent"
    runtime.mkdir()
    agent.mkdir()
    abstract = f"\0redline-test-{os.getpid()}-{level}"
    servers = []
    for address in (str(runtime / "bus"), str(agent / "agent.1"), abstract):
        server = socket.socket(socket.AF_UNIX)
        server.bind(address)
        server.listen(4)
        servers.append(server)
    box.env.update(XDG_RUNTIME_DIR=str(runtime), SSH_AUTH_SOCK=str(agent / "agent.1"),
                   TMUX="/tmp/tmux-0/default,1,0", DISPLAY=":0")  # fmt: skip
    probe_script = (
        "import os, socket, sys\n"
        "names = [n for n in ('XDG_RUNTIME_DIR', 'SSH_AUTH_SOCK', 'TMUX', 'DISPLAY')"
        " if n in os.environ]\n"
        "print(*names or ['none'])\n"
        "for address in sys.argv[1:]:\n"
        "    s = socket.socket(socket.AF_UNIX)\n"
        "    try:\n"
        "        s.connect(address.replace('@', '\\0', 1))\n"
        "        print('connected')\n"
        "    except OSError as error:\n"
        "        print('refused', error.errno)\n"
    )
    try:
        done = box.run(sys.executable, "-c", probe_script, str(runtime / "bus"),
                       str(agent / "agent.1"), "@" + abstract[1:])  # fmt: skip
    finally:
        for server in servers:
            server.close()
    lines = done.stdout.splitlines()
    assert lines[0] == "none"
    if level == "namespaces":  # path sockets hidden; abstract ones: only without network
        assert lines[1].startswith("refused") and lines[2].startswith("refused")
    elif landlock_abi() >= 6:  # Landlock cannot refuse a path socket's connect
        assert lines[3] == "refused 1"


def test_h4_the_home_root_or_a_system_folder_is_never_the_workspace(tmp_path: Path) -> None:
    home, gate = tmp_path / "home", tmp_path / "gates" / "rl"
    for folder in (home / ".config" / "app", home / "src" / "proj", gate):
        folder.mkdir(parents=True)
    env = {"HOME": str(home), "REDLINE_HOME": str(gate)}
    refused = {
        where: workspace_refusal(where, env)
        for where in ("/", "/usr/lib", "/etc", str(home), str(tmp_path), str(tmp_path / "gates"),
                      str(home / ".config" / "app"))
    }  # fmt: skip
    assert all(refused.values()), refused
    assert workspace_refusal(str(home / "src" / "proj"), env) is None
    # what an agent's `workdir: ~` or `cd ~` meets: refused before judging, with the repair
    judged = prepare("true", cwd=str(home), environ=env, record=False, force_level="landlock")
    if judged.level.name != "none":
        assert (judged.decision.verdict, judged.decision.code) == (
            Verdict.DENY,
            "workspace-refused",
        )
        assert judged.decision.repair


def test_h7_a_writable_place_swapped_for_a_symlink_is_not_bound(tmp_path: Path) -> None:
    found = probe("namespaces")
    if found.name != "namespaces":
        pytest.skip(f"no namespace sandbox here: {found.why}")
    box = Box(tmp_path, "namespaces")
    nested = box.ws / "sub" / "mytmp"  # a writable place inside another (TMPDIR, `writable`)
    nested.mkdir(parents=True)
    argv = box.argv("/bin/sh", "-c", "")
    planted = [*argv[:3], str(box.ws), str(nested), *argv[5:-1]]
    # the way the round did it: the parent renamed away, a symlink made. The
    # parent is pinned (a mount point) in any run whose plan holds the place:
    swap = f"mv sub sub.old && mkdir sub && ln -s {box.home} sub/mytmp && echo swapped"
    first = subprocess.run([*planted, swap], env=box.env, cwd=box.ws, capture_output=True,
                           text=True, timeout=30, check=False)  # fmt: skip
    assert first.stdout == "" and nested.is_dir() and not nested.is_symlink()
    # a run planned without it (another TMPDIR, policy) could: done here from outside
    (box.ws / "sub").rename(box.ws / "sub.old")
    (box.ws / "sub").mkdir()
    nested.symlink_to(box.home)
    wipe = f"rm -f {box.home}/canary; echo done"
    second = subprocess.run([*planted, wipe], env=box.env, cwd=box.ws, capture_output=True,
                            text=True, timeout=30, check=False)  # fmt: skip
    assert second.stdout == "done\n"
    assert (box.home / "canary").read_text() == "still here"
