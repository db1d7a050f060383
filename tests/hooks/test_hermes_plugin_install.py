"""`redline install hermes --plugin` and `redline doctor` for the plugin: the
Python Hermes runs on is read from its `hermes` script, redline goes into it,
the profile enables it, and `doctor` loads it from there as Hermes would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hookkit import Env

from redline.hooks.doctor import Finding, diagnose
from redline.hooks.install import hermes_plugin
from redline.hooks.install.files import ConfigError


def hermes_script(folder: Path, first_line: str) -> Path:
    """A `hermes` launcher as pip writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "hermes"
    script.write_text(f"{first_line}\nfrom hermes_cli.main import main\nmain()\n")
    script.chmod(0o755)
    return script


def test_hermes_python_is_read_from_the_script(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    hermes_script(bin_dir, f"#!{sys.executable}")
    assert hermes_plugin.hermes_python({"PATH": str(bin_dir)}) == sys.executable
    hermes_script(bin_dir, "#!/usr/bin/env python3")
    assert hermes_plugin.hermes_python({"PATH": f"{bin_dir}:/usr/bin"}) == "/usr/bin/python3"


def test_hermes_python_unknown_says_how(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no `hermes` on PATH"):
        hermes_plugin.hermes_python({"PATH": str(tmp_path)})
    hermes_script(tmp_path / "bin", "# not a launcher")
    with pytest.raises(ConfigError, match="cannot tell which Python runs"):
        hermes_plugin.hermes_python({"PATH": str(tmp_path / "bin")})


def test_pip_installs_this_redline_into_that_python() -> None:
    # This checkout is installed editable, so Hermes gets the same source.
    root = Path(hermes_plugin.__file__).parents[4]
    assert hermes_plugin.pip_argv("/opt/hermes/bin/python") == [
        "/opt/hermes/bin/python",
        "-m",
        "pip",
        "install",
        "--quiet",
        "-e",
        str(root),
    ]


HERMES_CONFIG = "# my profile\nmodel: m  # the one I like\n"


def test_enable_keeps_the_file_and_disable_takes_it_back(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(HERMES_CONFIG)
    assert hermes_plugin.enable(str(tmp_path)).changed
    assert config.read_text().startswith(HERMES_CONFIG + "\n# >>> redline plugin")
    assert yaml.safe_load(config.read_text())["plugins"] == {"enabled": ["redline"]}
    assert hermes_plugin.enabled(str(tmp_path))
    assert not hermes_plugin.enable(str(tmp_path)).changed
    assert hermes_plugin.disable(str(tmp_path)).changed
    assert config.read_text() == HERMES_CONFIG
    assert not hermes_plugin.enabled(str(tmp_path))


def test_enable_among_other_plugins(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"plugins": {"enabled": ["disk-cleanup"]}}))
    hermes_plugin.enable(str(tmp_path))
    assert yaml.safe_load(config.read_text())["plugins"]["enabled"] == ["disk-cleanup", "redline"]
    hermes_plugin.disable(str(tmp_path))
    assert yaml.safe_load(config.read_text())["plugins"]["enabled"] == ["disk-cleanup"]
    config.write_text(yaml.safe_dump({"plugins": {"disabled": ["redline"]}}))
    with pytest.raises(ConfigError, match=r"is in `plugins\.disabled`"):
        hermes_plugin.enable(str(tmp_path))


def test_install_runs_pip_with_hermes_python(tmp_path: Path, env: Env) -> None:
    """`pip` here is a stand-in that records its arguments (no download)."""
    fake = tmp_path / "venv" / "bin"
    fake.mkdir(parents=True)
    python = fake / "python"
    python.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/pip-args\n')
    python.chmod(0o755)
    hermes_script(fake, f"#!{python}")
    home = tmp_path / "home"
    changes = hermes_plugin.install(
        home=str(home), project=None, environ={**env, "PATH": str(fake)}
    )
    assert [c.path for c in changes] == [str(python), str(home / ".hermes" / "config.yaml")]
    assert (tmp_path / "pip-args").read_text().startswith("-m pip install --quiet ")
    assert hermes_plugin.enabled(str(home / ".hermes"))


def test_a_failing_pip_says_what_to_run(tmp_path: Path, env: Env) -> None:
    fake = tmp_path / "bin"
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho 'No matching distribution' >&2\nexit 1\n")
    python.chmod(0o755)
    hermes_script(fake, f"#!{python}")
    with pytest.raises(ConfigError, match=r"-m pip install --quiet .* failed \(No matching"):
        hermes_plugin.install(
            home=str(tmp_path / "h"), project=None, environ={**env, "PATH": str(fake)}
        )
    assert not (tmp_path / "h" / ".hermes" / "config.yaml").exists()


@pytest.fixture
def plugin_profile(env: Env, tmp_path: Path) -> Callable[[str], tuple[str, Env]]:
    def make(python: str) -> tuple[str, Env]:
        home = tmp_path / "home"
        hermes_plugin.enable(str(home / ".hermes"))
        bin_dir = tmp_path / "bin"
        hermes_script(bin_dir, f"#!{python}")
        return str(home), {**env, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"}

    return make


def test_doctor_finds_and_runs_the_plugin(plugin_profile: Callable[[str], tuple[str, Env]]) -> None:
    home, env = plugin_profile(sys.executable)  # this Python has redline and its entry point
    [finding] = [f for f in diagnose(home, None, env) if f.host == "hermes"]
    assert finding == Finding(
        "hermes",
        os.path.join(home, ".hermes", "config.yaml"),
        "plugin",
        True,
        f"the plugin loads in Hermes's Python ({sys.executable}): `ls` passes, `rm -rf /` blocked",
    )


def test_doctor_fails_a_plugin_hermes_cannot_import(
    plugin_profile: Callable[[str], tuple[str, Env]], tmp_path: Path
) -> None:
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    home, env = plugin_profile(str(bare / "bin" / "python"))
    [finding] = [f for f in diagnose(home, None, env) if f.host == "hermes"]
    assert not finding.ok and finding.event == "plugin"
    assert finding.detail.startswith(
        f"the `redline` plugin is enabled, but Hermes's Python ({bare}/bin/python) cannot load "
        "it: no `hermes_agent.plugins` entry point named `redline`; Hermes skips it without a "
        "word: run `redline install hermes --plugin`"
    )


def test_doctor_without_hermes_on_path_fails_the_plugin(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    hermes_plugin.enable(str(home / ".hermes"))
    findings = diagnose(str(home), None, {**env, "PATH": str(tmp_path)})
    [finding] = [f for f in findings if f.host == "hermes"]
    assert not finding.ok and "no `hermes` on PATH" in finding.detail


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["install", "codex", "--plugin"], "redline: --plugin is for hermes only"),
        (["install", "hermes", "--plugin", "--service"], "redline: --plugin takes no hook options"),
        (["uninstall", "gemini", "--plugin"], "redline: --plugin is for hermes only"),
    ],
)
def test_cli_plugin_options(env: Env, tmp_path: Path, args: list[str], why: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "redline", *args, "--home", str(tmp_path / "elsewhere")],
        capture_output=True,
        text=True,
        env={**env, "PATH": os.environ.get("PATH", "")},
        check=False,
    )
    assert (done.returncode, done.stderr.splitlines()[0][: len(why)]) == (1, why)
    assert not (tmp_path / "elsewhere").exists()


def test_cli_uninstall_plugin(env: Env, tmp_path: Path) -> None:
    home = tmp_path / "home"
    hermes_plugin.enable(str(home / ".hermes"))
    done = subprocess.run(
        [sys.executable, "-m", "redline", "uninstall", "hermes", "--plugin", "--home", str(home)],
        capture_output=True,
        text=True,
        env={**env, "PATH": os.environ.get("PATH", "")},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "disabled the `redline` plugin" in done.stdout
    assert not hermes_plugin.enabled(str(home / ".hermes"))
