"""SQL files written and fed to a client in the same command (`printf
'DROP TABLE t;' > w.sql; sqlite3 app.db < w.sql`, `psql -f w.sql`, `.read
w.sql`, `\\i w.sql`): the file's text is known here, so the client is judged
as if that text came on its stdin (the SQL rules read a heredoc). A file
whose text cannot be known keeps its verdict (read from disk, or by name).
"""

from __future__ import annotations

from collections.abc import Iterator

from redline.shell import paths
from redline.shell.carriers import Carried
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

# Clients that read SQL from stdin; and where some take a file of it.
CLIENTS = frozenset({"psql", "mysql", "mariadb", "sqlite3", "duckdb", "mycli", "usql", "sqlcmd",
                     "cqlsh", "clickhouse-client"})  # fmt: skip
_FILE_OPTIONS = {"psql": ("-f", "--file"), "usql": ("-f", "--file"), "cqlsh": ("-f", "--file"),
                 "sqlcmd": ("-i",), "clickhouse-client": ("--queries-file",)}  # fmt: skip
# A client's own command that runs a file: sqlite's `.read`, psql's `\i`, MySQL's `source`.
_INCLUDE = lazy_regex(
    r"(?:^|[\s;])(?:\.read|\\ir?|\\include(?:_relative)?|source|\\\.)\s+(['\"]?)([^\s;'\"]+)\1",
    flags=8,  # re.MULTILINE
)
_END = "REDLINE_SQL_END"


def fed_sql(written: dict[str, str | None], inv: Invocation, label: str) -> Iterator[Carried]:
    """The client `inv` fed each written SQL file it reads, as a heredoc."""
    for path in dict.fromkeys(_files(inv)):
        body = written.get(path)
        if body is None or DYNAMIC in body:
            continue
        end = _END
        while end in body:
            end += "_"
        yield Carried(f"{inv.name} <<'{end}'\n{body.rstrip(chr(10))}\n{end}\n", label + path)


def _files(inv: Invocation) -> Iterator[str]:
    names: list[str] = [r.target.value for r in inv.redirects if r.op == "<" and r.target]
    values = inv.values
    options = _FILE_OPTIONS.get(inv.name, ())
    for k, value in enumerate(values):
        for option in options:
            if value == option and k + 1 < len(values):
                names.append(values[k + 1])
            elif option.startswith("--") and value.startswith(option + "="):
                names.append(value[len(option) + 1 :])
            elif not option.startswith("--") and value.startswith(option) and len(value) > 2:
                names.append(value[2:])
    for text in (*values, inv.stdin_text or ""):
        if "." in text or "\\" in text or "source" in text:
            names.extend(m.group(2) for m in _INCLUDE.finditer(text))
    for name in names:
        if name and DYNAMIC not in name:
            path = paths.normalize(name, inv.cwd)
            if path is not None:
                yield path
