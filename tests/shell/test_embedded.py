"""Commands carried in option values and program scripts are analysed as
the commands they are (F-SHELL-3)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.shell.analysis import analyze

Argvs = Callable[..., list[tuple[str, ...]]]
RM = ("rm", "-rf", "/")


@pytest.mark.parametrize(
    "command",
    [
        "tar --checkpoint-action=exec='rm -rf /' -cf a.tar .",
        "tar --to-command='rm -rf /' -xf a.tar",
        "tar --to-com 'rm -rf /' -xf a.tar",
        "tar -I 'rm -rf /' -cf a.tar .",
        "tar -cI 'rm -rf /' -f a.tar .",
        "tar --use-compress-program='rm -rf /' -cf a.tar .",
        "rsync -e 'rm -rf /' a b:",
        "rsync -avze 'rm -rf /' a b:",
        "rsync --rsh='rm -rf /' a b:",
        "zip -TT 'rm -rf /' a.zip f",
        "zip --unzip-command='rm -rf /' a.zip f",
        "vim -c '!rm -rf /'",
        "vim -c ':silent !rm -rf /'",
        "nvim --cmd 'r !rm -rf /'",
        "vi +'!rm -rf /'",
        "gdb -ex 'shell rm -rf /'",
        "gdb --eval-command='!rm -rf /'",
        "ssh -o ProxyCommand='rm -rf /' host",
        "ssh -oLocalCommand='rm -rf /' host",
        "sftp -o 'ProxyCommand rm -rf /' host",
        "man -P 'rm -rf /' ls",
        "man --pager='rm -rf /' ls",
        "tcpdump -z 'rm -rf /' -w x.pcap",
        "sed 'e rm -rf /' f",
        "sed -e '1e rm -rf /' f",
        "sed -n --expression='$e rm -rf /' f",
        'awk \'BEGIN{print "rm -rf /" | "sh"}\'',
        "awk 'BEGIN{\"rm -rf /\" | getline}'",
        "parallel ::: 'rm -rf /'",
        "parallel 'rm -rf {}' ::: /",
        "parallel -j2 rm -rf {1} ::: / ::: x",
        "mysql -e 'system rm -rf /'",
        "mysql -u root -e 'select 1; system rm -rf /'",
        "mariadb --execute='\\! rm -rf /'",
        "mysql -uroot -pX -e 'SYSTEM rm -rf /'",
        "mysql -u root -p -e 'system rm -rf /'",
        "psql -c '\\! rm -rf /'",
        "psql -d app --command='\\! rm -rf /'",
        "sqlite3 app.db '.shell rm -rf /'",
        "sqlite3 -cmd '.system rm -rf /' app.db",
        "less +'!rm -rf /' notes.txt",
    ],
)
def test_carried_command_is_analysed(argvs: Argvs, command: str) -> None:
    assert RM in argvs(command)


@pytest.mark.parametrize(
    "command",
    [
        "tar --checkpoint=1 --checkpoint-action=dot -cf a.tar .",
        "tar -xzf a.tgz -C /tmp",
        "vim -c wq f",
        "vim +10 f",
        "gdb -batch -ex bt ./a.out core",
        "ssh -o StrictHostKeyChecking=no host",
        "ssh -o ProxyCommand=none host",
        "sed -i 's/e foo/bar/' f",
        "sed -f script.sed f",
        "zip -T a.zip f",
        "mysql -e 'select * from system_users'",
        "mysql -u root -e 'show variables'",
        "psql -c '\\dt'",
        "psql -d app -c 'select 1'",
        "sqlite3 app.db '.tables'",
        "less +F app.log",
    ],
)
def test_plain_options_carry_nothing(command: str) -> None:
    analysis = analyze(command)
    assert [inv.via for inv in analysis.invocations] == [()]


def test_parallel_quotes_each_argument(argvs: Argvs) -> None:
    assert argvs("parallel 'gzip {}' ::: 'a b' c") == [
        ("parallel", "gzip {}", ":::", "a b", "c"),
        ("gzip", "a b"),
        ("gzip", "c"),
    ]


def test_parallel_with_argument_files_appends_at_run_time() -> None:
    inner = analyze("parallel gzip :::: files.txt").invocations[1]
    assert (inner.name, inner.appended_args) == ("gzip", True)


def test_remote_option_runs_remotely() -> None:
    inner = analyze("rsync --rsync-path='sudo rsync' -a a h:b").invocations[1]
    assert (inner.name, inner.remote) == ("sudo", True)
