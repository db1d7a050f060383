"""What inline code does, told as shell commands (issue #13, family 7)."""

from __future__ import annotations

import pytest

from redline.shell.code_sinks import code_sinks


@pytest.mark.parametrize(
    ("name", "code", "told"),
    [
        ("python3", "import shutil as s; s.rmtree('/etc')", "rm -rf -- /etc"),
        ("python3", "import os; p = os.path.join('/', 'usr', 'lib'); os.remove(p)",
         "rm -f -- /usr/lib"),
        ("python3", "import shutil; d = 'var'; shutil.rmtree(f'/{d}')", "rm -rf -- /var"),
        ("python3", "import pathlib; (pathlib.Path.home() / '.ssh').joinpath('k').unlink()",
         "rm -f -- ~/.ssh/k"),
        ("python3", "import os; getattr(os, 'sys' 'tem')('reboot')", "reboot"),
        ("python3", "import os, signal; os.killpg(1, signal.SIGTERM)", "kill -15 -- -1"),
        ("python3", "import os; os.kill(-1, 0 + 9)", "kill -9 -- -1"),
        ("python3", "import subprocess; subprocess.run('mkfs.ext4 /dev/sda'.split())",
         "mkfs.ext4 /dev/sda"),
        ("python3", "import subprocess as sp; sp.Popen(['sh', '-c', 'rm -rf ~'])",
         "sh -c 'rm -rf ~'"),
        ("python3", "import os; os.execl('/sbin/reboot', 'reboot', '-f')", "reboot -f"),
        ("python3", "import os; fd = os.open('/dev/sdb', os.O_RDWR)", ": > /dev/sdb"),
        ("python3", "import os; os.system('echo %s' % 'hi')", "echo hi"),
        ("node", "const {execSync} = require('child_process'); execSync('a' + 'b')", "ab"),
        ("node", "new Deno.Command('rm', {args: ['-rf', '/']}).outputSync()", "rm -rf /"),
        ("deno", "Deno.removeSync('/srv', {recursive: true})", "rm -rf -- /srv"),
        ("node", "process.kill(-1)", "kill -15 -- -1"),
        ("perl", "open(F, '>/dev/sda'); print F 'x'", ": > /dev/sda"),
        ("perl", "kill 'TERM', 1, -1", "kill -15 -- 1 -1"),
        # A signal no one can read is taken at its worst.
        ("ruby", "Process.kill(:KILL, -1)", "kill -9 -- -1"),
        ("ruby", "Process.kill(9, pid)", None),
        ("ruby", "system('rm', '-rf', '/')", "rm -rf /"),
        ("php", "$h = getenv('HOME'); shell_exec('rm -rf ' . $h);", "rm -rf ~"),
    ],
)  # fmt: skip
def test_code_is_told_as_its_shell_command(name: str, code: str, told: str | None) -> None:
    commands = code_sinks(code, name).commands
    if told is None:
        assert commands == ()
    else:
        assert told in commands


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("python3", "import os, sys; os.remove(sys.argv[1])"),
        ("python3", "import os\nc = 'ls'\nc = input()\nos.system(c)"),
        ("python3", "import os\nc = 'ls'\ndef f(c): os.system(c)\nf(input())"),
        ("node", "require('fs').rmSync(process.argv[1], {recursive: true})"),
        ("perl", 'my $c = "rm -rf $ARGV[0]"; system($c)'),
        ("ruby", 'system("rm -rf #{ARGV[0]}")'),
    ],
)
def test_an_unknown_value_is_never_guessed(name: str, code: str) -> None:
    commands = code_sinks(code, name).commands
    assert not any(c.startswith(("rm", "ls")) for c in commands), commands


def test_the_rest_is_the_code_less_its_told_calls() -> None:
    assert code_sinks("import shutil; shutil.rmtree('build')", "python3").rest == "0"
    rest = code_sinks("import shutil; shutil.copy('a', 'b'); print(1)", "python3").rest
    assert rest is not None
    assert "shutil" not in rest
    assert "print(1)" in rest
    # A module used for a call not told stays, and so the rest is unknown.
    assert code_sinks("import shutil; shutil.disk_usage('/')", "python3").rest is None
    # A call whose arguments run code is not taken away.
    lambda_rest = code_sinks("import shutil; shutil.rmtree('b', onerror=lambda *a: 0)", "python3")
    assert lambda_rest.rest is None
