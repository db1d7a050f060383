"""Destroying data in databases: SQL `DROP`, `TRUNCATE`, `DELETE` and
`UPDATE` without `WHERE`, wherever SQL reaches a client (an option, an
operand, a heredoc, a pipe); Redis flushes, MongoDB drops, `dropdb`
(F-RULES-2)."""

import re
from collections.abc import Callable, Iterator

from redline.decision import Severity
from redline.fasttuple import NamedTuple
from redline.rules import argv, sql_files
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

D = Severity.DANGEROUS


class _Client(NamedTuple):
    """Where a SQL client takes SQL (short letters, long names), and which
    other options take a value, so that value is not read as SQL or a flag."""

    sql_short: str
    sql_long: tuple[str, ...]
    valued_short: str
    valued_long: tuple[str, ...] = ()


_COMMON_LONG = ("host", "port", "user", "username", "dbname", "database", "file", "output",
                "set", "variable", "socket", "format", "password", "url")  # fmt: skip
_CLIENTS: dict[str, _Client] = {
    "psql": _Client("c", ("command",), "dfhpUovPTFRL"),
    "mysql": _Client("e", ("execute",), "uhPSD"),
    "mariadb": _Client("e", ("execute",), "uhPSD"),
    "clickhouse-client": _Client("q", ("query",), "hud"),
    "clickhouse": _Client("q", ("query",), "hud"),
    "clickhouse-local": _Client("q", ("query",), "hud"),
    "cockroach": _Client("e", ("execute",), "du"),
    "sqlcmd": _Client("Qq", (), "SUPdio"),
    "cqlsh": _Client("e", ("execute",), "upkf"),
    "mycli": _Client("e", ("execute",), "huPpDS"),
    "usql": _Client("c", ("command",), "fo"),
    "trino": _Client("", ("execute",), ""),
    "snowsql": _Client("q", ("query",), "audswrfc"),
    "spark-sql": _Client("e", (), "fi"),
    "hive": _Client("e", (), "fi"),
    "beeline": _Client("e", (), "fiunpd"),
    "duckdb": _Client("", (), ""),
    "sqlite3": _Client("", (), ""),
}
SQL_CLIENTS = frozenset(_CLIENTS)
_SQLITE_VALUED = frozenset({"-cmd", "-separator", "-nullvalue", "-newline", "-init", "-vfs",
                            "-mmap", "-maxsize", "-pagecache", "-lookaside", "-heap"})  # fmt: skip


def sql_texts(inv: Invocation) -> Iterator[str]:
    """Every piece of SQL an invocation hands to its database."""
    name = inv.name
    values = inv.values
    if name == "cockroach" and values[:1] != ("sql",):
        return
    if name == "clickhouse" and values[:1] not in (("client",), ("local",)):
        return
    if name == "sqlite3" or name == "duckdb":
        k, operands = 0, []
        while k < len(values):
            if values[k] in _SQLITE_VALUED or values[k] == "-c":
                if values[k] in ("-cmd", "-c") and k + 1 < len(values):
                    yield values[k + 1]
                k += 2
                continue
            if not values[k].startswith("-"):
                operands.append(values[k])
            k += 1
        yield from operands[1:]  # `sqlite3 DB SQL...`
    else:
        client = _CLIENTS[name]
        short, long = client.sql_short, client.sql_long
        # getopt_long and MySQL's option parser take prefixes: `--comm`, `--exec`
        args = argv.parse(values, client.valued_short + short, (*_COMMON_LONG, *long),
                          long_names=long or ("help",))  # fmt: skip
        yield from args.value(*(f"-{c}" for c in short), *(f"--{n}" for n in long))
    if inv.stdin_text is not None:
        yield inv.stdin_text


# Where clients take a file of SQL: `psql -f`, `cqlsh -f`, `sqlcmd -i`.
_FILE_OPTIONS = {"psql": ("-f", "--file"), "cqlsh": ("-f", "--file"), "sqlcmd": ("-i",),
                 "clickhouse-client": ("--queries-file",)}  # fmt: skip


def _sql_file_names(inv: Invocation, texts: list[str]) -> Iterator[str]:
    options = _FILE_OPTIONS.get(inv.name)
    if options:
        client = _CLIENTS[inv.name]
        long = (*_COMMON_LONG, *client.sql_long, "queries-file")
        yield from argv.parse(inv.values, client.valued_short, long).value(*options)
    for redirect in inv.redirects:
        if redirect.op == "<" and redirect.target is not None:
            yield redirect.target.value
    yield from sql_files.included(texts)


def sql_inputs(inv: Invocation) -> Iterator[str]:
    """The SQL on the command line and in the files it names, read from disk."""
    texts = list(sql_texts(inv))
    yield from texts
    for name in dict.fromkeys(_sql_file_names(inv, texts)):
        text = sql_files.read(name, inv.cwd)
        if text is not None:
            yield text


# Masks a literal or a comment; `/*!...*/` runs in MySQL, so it stays visible.
_COMMENTS = r"|`[^`]*`?|--[^\n]*|/\*(?!!).*?(?:\*/|\Z)"
_LITERAL = {
    False: lazy_regex(r"'(?:[^']|'')*'?|\"(?:[^\"]|\"\")*\"?" + _COMMENTS, re.DOTALL),
    True: lazy_regex(r"'(?:[^'\\]|\\.|'')*'?|\"(?:[^\"\\]|\\.|\"\")*\"?" + _COMMENTS, re.DOTALL),
}


def _blank(match: re.Match[str]) -> str:
    text = match.group(0)
    if text[0] in "'\"`":
        return text[0] + "x" + text[0]
    return " "


def statements(sql: str) -> Iterator[str]:
    """The statements of `sql`, with literals and comments blanked, read
    both with and without backslash escapes (MySQL and standard SQL differ)."""
    for backslash in (False, True):
        masked = _LITERAL[backslash].sub(_blank, sql)
        yield from (s.strip() for s in masked.split(";") if s.strip())


_DROP = lazy_regex(
    r"\bDROP\s+(?:TEMPORARY\s+)?(?:TABLE|DATABASE|SCHEMA|INDEX|VIEW|MATERIALIZED\s+VIEW|COLUMN"
    r"|USER|ROLE|SEQUENCE|FUNCTION|PROCEDURE|TRIGGER|TYPE|EXTENSION|KEYSPACE|COLLECTION"
    r"|OWNED|TABLESPACE|DOMAIN|PARTITION)\b",
    re.IGNORECASE,
)
_TRUNCATE = lazy_regex(r"\ATRUNCATE\b(?!\s*\()", re.IGNORECASE)
_DELETE = lazy_regex(r"(?<!\bON\s)\bDELETE\s+(?:\w+\s+)?FROM\b", re.IGNORECASE)
_UPDATE = lazy_regex(r"(?<!\bON\s)\bUPDATE\s+[\w.\"`]+(?:\s+(?:AS\s+)?\w+)?\s+SET\b",
                     re.IGNORECASE)  # fmt: skip
_WHERE = lazy_regex(r"\bWHERE\b(?!\s+(?:1|TRUE|(\d+)\s*=\s*\1|'x'\s*=\s*'x')\s*(?:LIMIT\b|\Z))",
                    re.IGNORECASE)  # fmt: skip


def _drop(statement: str) -> bool:
    return bool(_DROP.search(statement))


def _truncate(statement: str) -> bool:
    return bool(_TRUNCATE.match(statement))


def _delete_all(statement: str) -> bool:
    return bool(_DELETE.search(statement)) and not _WHERE.search(statement)


def _update_all(statement: str) -> bool:
    return bool(_UPDATE.search(statement)) and not _WHERE.search(statement)


def _sql(check: Callable[[str], bool]) -> Callable[[Invocation, Analysis], bool]:
    def test(inv: Invocation, analysis: Analysis) -> bool:
        return any(check(s) for sql in sql_inputs(inv) for s in statements(sql))

    return test


_REDIS = ("redis-cli", "valkey-cli", "keydb-cli")
_REDIS_VALUES = ("hpanusrid", ("user", "pass", "askpass", "cacert", "cert", "key", "sni", "tls"))


_LUA_FLUSH = lazy_regex(r"\bflush(?:all|db)\b", re.IGNORECASE)


def _redis_flush(inv: Invocation, analysis: Analysis) -> bool:
    operands = argv.parse(inv.values, *_REDIS_VALUES).operands
    words = operands[:1] if operands else ()
    if inv.stdin_text is not None:
        words += tuple(line.split()[0] for line in inv.stdin_text.splitlines() if line.split())
    if any(w.lower() in ("flushall", "flushdb") for w in words):
        return True
    # a Lua script run on the server: `EVAL "return redis.call('FLUSHALL')" 0`
    lua = words[:1] and words[0].lower() in ("eval", "eval_ro") and len(operands) > 1
    if lua and _LUA_FLUSH.search(operands[1]):
        return True
    # `redis-cli --scan | xargs redis-cli del`: keys fed in bulk, as many as match.
    return inv.appended_args and bool(words) and words[0].lower() in ("del", "unlink")


_MONGO_DROP = lazy_regex(
    r"\.\s*(?:dropDatabase|drop|dropUser|dropAllUsers|dropIndexes)\s*\("
    r"|\.\s*(?:deleteMany|remove)\s*\(\s*\{\s*\}\s*\)",
)
_JS_STRING = lazy_regex(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`(?:[^`\\]|\\.)*`")


def _mongo_drop(inv: Invocation, analysis: Analysis) -> bool:
    code = list(argv.parse(inv.values, "uph", ("eval", "username", "password", "host",
                                               "port")).value("--eval"))  # fmt: skip
    if inv.stdin_text is not None:
        code.append(inv.stdin_text)
    return any(_MONGO_DROP.search(_JS_STRING.sub("''", c)) for c in code)


def _drop_database(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name in ("dropdb", "dropuser"):
        return bool(argv.parse(inv.values, "hpUc", ("host", "port", "username")).operands)
    operands = argv.parse(inv.values, "hPuSp", ("host", "port", "user", "socket")).operands
    return any(o.lower() == "drop" for o in operands)


DATA_RULES: tuple[Rule, ...] = (
    rule(
        "data.sql-drop",
        "data",
        D,
        "SQL `DROP` of a table, database, schema, column or other object",
        "back up the data first and ask the owner; write a migration instead of dropping by hand",
        programs=SQL_CLIENTS,
        test=_sql(_drop),
        must_match=(
            "psql -c 'DROP TABLE users'",
            'mysql -e "drop database app"',
            "sqlite3 app.db 'DROP TABLE t'",
            "echo 'DROP SCHEMA public CASCADE' | psql",
            "psql --command='alter table t drop column email'",
            "psql <<'EOF'\nselect 1;\ndrop table x;\nEOF",
            "sudo -u postgres psql -d app -c 'DROP INDEX i'",
            "clickhouse-client -q 'DROP TABLE logs'",
            "cockroach sql -e 'DROP TABLE x'",
            "mysql -e \"SELECT 'a\\'' DROP TABLE x; '\"",
            "mysql --exec='DROP DATABASE shop'",
        ),
        must_not_match=(
            "psql -c 'select 1'",
            "psql -c \"SELECT 'drop table x'\"",
            "grep -r 'DROP TABLE' .",
            "echo 'DROP TABLE x'",
            "psql -c 'select 1 -- drop table x'",
            "psql -f migrate.sql",
            "mysql -e 'CREATE TABLE drop_log (id int)'",
        ),
    ),
    rule(
        "data.sql-truncate",
        "data",
        D,
        "SQL `TRUNCATE`: deletes every row of a table",
        "delete the rows you mean with a `WHERE` clause, after a backup",
        programs=SQL_CLIENTS,
        test=_sql(_truncate),
        must_match=(
            "psql -c 'TRUNCATE users'",
            "mysql -e 'truncate table logs' db",
            "sqlite3 x.db <<< 'truncate t'",
            "psql -c 'select 1; TRUNCATE TABLE a, b'",
            "psql --comm='TRUNCATE audit_log' prod",
        ),
        must_not_match=(
            "mysql -e 'SELECT TRUNCATE(1.5, 0)'",
            "psql -c 'select 1'",
            "echo TRUNCATE t",
            "psql -c \"select 'truncate x'\"",
        ),
    ),
    rule(
        "data.sql-delete-all",
        "data",
        D,
        "SQL `DELETE` without a `WHERE` clause: deletes every row",
        "add a `WHERE` clause naming the rows to delete",
        programs=SQL_CLIENTS,
        test=_sql(_delete_all),
        must_match=(
            "psql -c 'DELETE FROM users'",
            "mysql -e 'delete from logs limit 100'",
            "sqlite3 db.sqlite 'DELETE FROM t; SELECT 1 WHERE 1'",
            "psql -c 'delete from t where 1=1'",
            "echo 'DELETE FROM sessions;' | mysql app",
        ),
        must_not_match=(
            "psql -c 'DELETE FROM users WHERE id = 3'",
            "psql -c 'CREATE TABLE t (a int REFERENCES u ON DELETE CASCADE)'",
            "mysql -e \"SELECT 'delete from x'\"",
            "grep 'DELETE FROM' app.log",
        ),
    ),
    rule(
        "data.sql-update-all",
        "data",
        D,
        "SQL `UPDATE` without a `WHERE` clause: changes every row",
        "add a `WHERE` clause naming the rows to change",
        programs=SQL_CLIENTS,
        test=_sql(_update_all),
        must_match=(
            'psql -c "UPDATE users SET admin = true"',
            "mysql -e 'update accounts set balance=0'",
            "sqlite3 x.db \"update t set a = 'b where c'\"",
            "psql -c 'UPDATE t SET x = 1 WHERE true'",
        ),
        must_not_match=(
            'psql -c "UPDATE users SET admin = true WHERE id = 1"',
            "psql -c 'select * from t for update'",
            "mysql -e 'INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 1'",
            "echo 'UPDATE t SET a = 1'",
        ),
    ),
    rule(
        "data.redis-flush",
        "data",
        D,
        "Redis `FLUSHALL` or `FLUSHDB`, or `DEL` of keys fed in bulk: deletes every key, or every "
        "key that matched",
        "delete the specific keys you created (`DEL key`)",
        programs=_REDIS,
        test=_redis_flush,
        must_match=(
            "redis-cli FLUSHALL",
            "redis-cli -h cache -p 6380 -n 2 flushdb",
            "echo FLUSHALL | redis-cli",
            "valkey-cli flushall async",
            "redis-cli --scan --pattern 'sess:*' | xargs redis-cli del",
            "redis-cli keys '*' | xargs -n 100 redis-cli unlink",
            "redis-cli EVAL \"return redis.call('FLUSHALL')\" 0",
        ),
        must_not_match=(
            "redis-cli get flushall",
            "redis-cli info",
            "redis-cli -h flushall ping",
            "echo redis-cli flushall",
            "redis-cli del session:42",
            "redis-cli EVAL \"return redis.call('GET', KEYS[1])\" 1 k",
            "redis-cli --scan --pattern 'sess:*' | xargs redis-cli ttl",
        ),
    ),
    rule(
        "data.mongo-drop",
        "data",
        D,
        "MongoDB drop of a database or collection, or a delete of every document",
        "delete the specific documents with a filter, after a backup",
        programs=("mongo", "mongosh"),
        test=_mongo_drop,
        must_match=(
            "mongosh --eval 'db.dropDatabase()'",
            "mongo app --eval 'db.users.drop()'",
            "mongosh <<< 'db.logs.deleteMany({})'",
            "mongosh --eval \"db.getSiblingDB('x').dropDatabase()\"",
        ),
        must_not_match=(
            "mongosh --eval 'db.users.find()'",
            "mongosh --eval 'print(\"db.dropDatabase()\")'",
            "mongosh --eval 'db.users.deleteMany({age: 3})'",
            "echo db.dropDatabase()",
        ),
    ),
    rule(
        "data.drop-database",
        "data",
        D,
        "drop a whole database with its admin tool (`dropdb`, `mysqladmin drop`)",
        "back up the database first (`pg_dump`, `mysqldump`) and ask the owner",
        programs=("dropdb", "dropuser", "mysqladmin"),
        test=_drop_database,
        must_match=(
            "dropdb app",
            "sudo -u postgres dropdb --if-exists app_test",
            "mysqladmin -u root -f drop shop",
            "dropuser bob",
        ),
        must_not_match=(
            "createdb app",
            "dropdb --help",
            "mysqladmin status",
            "echo dropdb app",
            "pg_dump app",
        ),
    ),
)
