"""Enforcement with the real clients: once `redline install claude-code
--enforce` or `redline install hermes --plugin --enforce` is in place, a
command redline allows really runs inside the sandbox.

One command shows it all: it writes canaries into its workspace (writes
there work), tries to write one into the fake `$HOME` outside the workspace
(refused: the sandbox makes it read-only), records whether a canary secret
and an ordinary variable reached it (the secret must not), and exits 7
(passed through to the model). The throw-away home is made outside `/tmp`
(the sandbox keeps `/tmp` writable on purpose), in a scratch folder beside
the tests, with a `.git` in the project so the workspace is the project.

Hermes runs from a private virtual environment that sees the pinned Hermes's
packages and this checkout's redline through a `.pth` file: nothing is
installed into the shared Hermes environment.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from redline.sandbox.level import NAMESPACES, probe

from .conftest import Sandbox, client, run_client
from .hermes_kit import Profile, ToolCall, hermes_or_skip, one_shot
from .standin import Standin

pytestmark = pytest.mark.slow

PROBE = (
    "touch CANARY_OK; "
    'printf %s "${E2E_CANARY_TOKEN-absent}" > CANARY_SECRET; '
    'printf %s "${E2E_ORDINARY-absent}" > CANARY_ORDINARY; '
    'touch "$HOME/CANARY_ESCAPED" 2>/dev/null || touch CANARY_HOME_READONLY; '
    "exit 7"
)
CLIENT_ENV = {"E2E_CANARY_TOKEN": "canary-secret-value", "E2E_ORDINARY": "plain"}


def _scratch() -> Path:
    """Fake homes must lie outside the sandbox's writable temp directories: beside
    the checkout, unless the checkout itself is under one (a clone in /tmp), then
    in the real home (read-only in the sandbox, except its caches)."""
    from redline.sandbox.plan import TEMP_DIRS

    checkout = Path(__file__).resolve().parents[2]
    real = os.path.realpath(checkout)
    if any(real == t or real.startswith(t + "/") for t in TEMP_DIRS):
        return Path(os.path.expanduser("~")) / ".redline-e2e-scratch"
    return checkout / ".e2e-scratch"


SCRATCH = _scratch()


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    SCRATCH.mkdir(mode=0o700, exist_ok=True)
    root = Path(tempfile.mkdtemp(dir=SCRATCH))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def sandboxed(workspace: Path, home: Path) -> None:
    """What the probe leaves when it ran inside the sandbox."""
    names = sorted(p.name for p in workspace.iterdir() if p.name.startswith("CANARY"))
    assert names == ["CANARY_HOME_READONLY", "CANARY_OK", "CANARY_ORDINARY", "CANARY_SECRET"]
    assert not (home / "CANARY_ESCAPED").exists()
    assert (workspace / "CANARY_SECRET").read_text() == "absent"
    assert (workspace / "CANARY_ORDINARY").read_text() == "plain"


@pytest.mark.parametrize("launch", ["direct", "run"])
def test_claude_code_runs_an_allowed_command_in_the_sandbox(outside_tmp: Path, launch: str) -> None:
    """The hook's own bwrap launch, and (`REDLINE_ENFORCE_LAUNCH=run`) `redline run`."""
    binary = client("claude")
    sandbox = Sandbox(outside_tmp)
    (sandbox.project / ".git").mkdir()
    output = sandbox.install("claude-code", "--enforce")
    assert "Allowed shell commands now run" in output
    with Standin("anthropic", "Bash", {"command": PROBE, "description": "probe"}) as model:
        env = {
            "ANTHROPIC_BASE_URL": model.url,
            "ANTHROPIC_API_KEY": "sk-standin",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "REDLINE_ENFORCE_LAUNCH": launch,
            **CLIENT_ENV,
        }
        run = run_client([binary, "-p", "run the tool"], sandbox, model, env)
    sandboxed(sandbox.project, sandbox.home)
    assert "7" in run.told, run  # the exit status reached the model
    assert "redline" not in run.told, run  # and nothing else of the rewrite
    # The hook's decision; through `redline run`, then the run's (ticketed).
    entries = 2 if launch == "run" or probe().name != NAMESPACES else 1
    assert [(tool, verdict) for tool, verdict, _ in sandbox.logged()] == [
        ("Bash", "allow")
    ] * entries


@pytest.fixture(scope="module")
def private_hermes(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A `hermes` on a virtual environment of its own: the pinned Hermes's
    packages and this redline (with its entry point) through a `.pth`."""
    pinned = Path(hermes_or_skip())
    shared = pinned.parent.parent
    venv = tmp_path_factory.mktemp("hermes-venv")
    subprocess.run([str(shared / "bin" / "python"), "-m", "venv", "--without-pip", str(venv)],
                   check=True, timeout=120)  # fmt: skip
    ours = Path(sys.prefix)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    (site,) = (venv / "lib").glob("python3*/site-packages")
    import redline

    source = Path(redline.__file__).resolve().parents[1]
    lines = [
        *shared.glob("lib/python3*/site-packages"),
        ours / "lib" / version / "site-packages",
        source,
    ]
    (site / "redline_e2e.pth").write_text("".join(f"{p}\n" for p in lines))
    script = venv / "bin" / "hermes"
    text = pinned.read_text().splitlines(keepends=True)
    script.write_text(f"#!{venv / 'bin' / 'python'}\n" + "".join(text[1:]))
    script.chmod(0o755)
    return str(script)


def test_hermes_runs_an_allowed_terminal_command_in_the_sandbox(
    private_hermes: str, outside_tmp: Path
) -> None:
    from redline.hooks.install import hermes_plugin

    profile = Profile(outside_tmp)
    (profile.work / ".git").mkdir()
    hermes_plugin.enable(str(profile.hermes_home), enforce=True)  # pip's part: the `.pth`
    report = profile.redline(private_hermes, "doctor")
    assert "enforcing: terminal commands run " in report, report
    call = ToolCall("terminal", {"command": PROBE, "workdir": str(profile.work)})
    run = one_shot(private_hermes, profile, [call], **CLIENT_ENV)
    sandboxed(profile.work, profile.home)
    result = json.loads(run.results[0])
    assert result["exit_code"] == 7, result
    assert "redline" not in run.results[0]


def test_scratch_is_outside_the_sandboxes_writable_temp() -> None:
    """The fake homes above are only meaningful outside `/tmp` and `/var/tmp`."""
    from redline.sandbox.plan import TEMP_DIRS

    real = os.path.realpath(SCRATCH.parent)
    assert not any(real == t or real.startswith(t + "/") for t in TEMP_DIRS)
