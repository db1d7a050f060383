"""Passwords written on a command line (issue 18, family 1): the literal
lands in the transcript, the shell's history and every process listing
(`mysql -pS3cret`, `sshpass -p pw`, `curl -u user:pw`, a URL with a
password in it). A password read from a prompt, a file or stdin is not."""

from __future__ import annotations

import re
from collections.abc import Iterator

from redline.decision import Severity
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

S = Severity.SENSITIVE

_URL_PASSWORD = lazy_regex(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:([^/\s@]+)@", re.IGNORECASE)
_MYSQL = frozenset({"mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow",
                    "mysqlcheck", "mariadb-dump", "mysqlsh"})  # fmt: skip
# Per program: the options whose value is a password (`-p X`, `-pX`, `--password=X`).
_PASSWORD_OPTIONS: dict[str, tuple[str, ...]] = {
    "sshpass": ("-p",),
    "redis-cli": ("-a", "--pass"),
    "mongo": ("--password",),
    "mongosh": ("--password", "-p"),
    "docker": ("-p", "--password"),
    "podman": ("-p", "--password"),
    "nerdctl": ("-p", "--password"),
    "helm": ("--password",),
    "ldapsearch": ("-w",),
    "ldapmodify": ("-w",),
    "ldapadd": ("-w",),
    "ldapdelete": ("-w",),
    "sqlcmd": ("-P",),
    "zip": ("-P", "--password"),
    "unzip": ("-P",),
    "wget": ("--password", "--http-password", "--ftp-password", "--proxy-password"),
    "smbclient": ("--password",),
}
# Options whose value is `user:password` (`curl -u bob:pw`, `smbclient -U bob%pw`).
_USER_PASSWORD: dict[str, tuple[tuple[str, ...], str]] = {
    "curl": (("-u", "--user", "-U", "--proxy-user"), ":"),
    "smbclient": (("-U", "--user"), "%"),
}


# Clients that take a URL that may carry a password (`psql postgresql://u:pw@h/db`).
_URL_CLIENTS = ("psql", "pg_dump", "pg_dumpall", "pg_restore", "pgcli", "mycli", "usql",
                "mongodump", "mongorestore", "mongoexport", "mongoimport", "clickhouse-client",
                "http", "https", "lftp", "ftp", "pip", "pip3", "npm", "yarn", "pnpm", "uv",
                "poetry", "twine", "rclone", "amqp-publish", "influx", "redis-cli", "mongo",
                "mongosh", "curl", "wget")  # fmt: skip
PROGRAMS = (
    *_MYSQL,
    *_PASSWORD_OPTIONS,
    *_USER_PASSWORD,
    *_URL_CLIENTS,
    "htpasswd",
    "openssl",
    "7z",
)


def _literal(value: str) -> bool:
    """A value written out, not read from a variable or a command."""
    return bool(value) and DYNAMIC not in value and value != "-"


def _option_values(values: tuple[str, ...], names: tuple[str, ...]) -> Iterator[str]:
    """`-p X`, `-pX` (short names), `--password X`, `--password=X`."""
    for k, value in enumerate(values):
        for name in names:
            if value == name:
                if k + 1 < len(values):
                    yield values[k + 1]
            elif name.startswith("--") and value.startswith(name + "="):
                yield value[len(name) + 1 :]
            elif not name.startswith("--") and value.startswith(name) and len(value) > 2:
                yield value[2:]


def _mysql(values: tuple[str, ...]) -> bool:
    # `-p` alone prompts; `-pSECRET` and `--password=SECRET` carry it (`-P` is the port)
    for value in values:
        if value.startswith("--password="):
            return _literal(value[11:])
        if value.startswith("-p") and len(value) > 2:
            return _literal(value[2:])
    return False


def _password_argument(inv: Invocation, analysis: Analysis) -> bool:
    name, values = inv.name, inv.values
    if name in _MYSQL and _mysql(values):
        return True
    if name == "htpasswd":
        batch = any(v.startswith("-") and "b" in v for v in values)
        operands = [v for v in values if not v.startswith("-")]
        return batch and len(operands) >= 3 and _literal(operands[-1])
    if name == "openssl":
        return any(
            (values[k] in ("-passin", "-passout", "-pass") and values[k + 1].startswith("pass:"))
            or (values[k] == "-k" and _literal(values[k + 1]))
            for k in range(len(values) - 1)
        )
    if name == "7z" and any(v.startswith("-p") and _literal(v[2:]) for v in values):
        return True
    names = _PASSWORD_OPTIONS.get(name)
    if names and name in ("docker", "podman", "nerdctl") and "login" not in values:
        names = None
    if names and any(_literal(v) for v in _option_values(values, names)):
        return True
    pair = _USER_PASSWORD.get(name)
    if pair is not None:
        for value in _option_values(values, pair[0]):
            _, sep, password = value.partition(pair[1])
            if sep and _literal(password):
                return True
    return any(
        DYNAMIC not in v and (m := _URL_PASSWORD.search(v)) is not None and _literal(m.group(1))
        for v in values
        if "://" in v
    )


PASSWORD_RULES: tuple[Rule, ...] = (
    rule(
        "secret.password-argument",
        "secret",
        S,
        "write a password on the command line, where the transcript, the shell's history and "
        "every process listing show it",
        "let the program prompt for it, or read it from a file or stdin (`--password-stdin`, "
        "`MYSQL_PWD`, `~/.pgpass`, `sshpass -f`)",
        programs=PROGRAMS,
        test=_password_argument,
        must_match=(
            "mysql -u root -pS3cretPass db",
            "mysql --password=hunter2 app",
            "sshpass -p hunter2 ssh deploy@web1",
            "curl -u admin:hunter2 https://api.example.com",
            "docker login -u bot -p dckr_pat_x registry.example.com",
            "psql postgresql://app:s3cret@db.internal/app",
            "redis-cli -a s3cret ping",
            "htpasswd -b .htpasswd admin hunter2",
        ),
        must_not_match=(
            "mysql -u root -p db",
            "mysql -uroot -P 3306 -h db",
            "sshpass -f pwfile ssh deploy@web1",
            "curl -u admin https://api.example.com",
            "docker login -u bot --password-stdin registry.example.com",
            "psql postgresql://app@db.internal/app",
            "curl https://example.com/a:b@c",
            "git clone https://bob:pw@git.example.com/r.git",
            'mysql -p"$DB_PASSWORD" app',
            "docker run -p 8080:80 nginx",
        ),
    ),
)
