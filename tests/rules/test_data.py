"""SQL and other database commands that destroy data."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.rules.data import sql_texts, statements
from redline.shell.analysis import analyze

Judge = Callable[..., tuple[str, tuple[str, ...]]]
DROP = ("ask", ("data.sql-drop",))
DELETE = ("ask", ("data.sql-delete-all",))


def test_statements_blank_literals_and_comments() -> None:
    assert list(statements("select 'a;b' -- drop table x\n; /* drop */ drop table y")) == [
        "select 'x'",
        "drop table y",
        "select 'x'",
        "drop table y",
    ]


def test_statements_read_both_backslash_conventions() -> None:
    sql = "SELECT 'a\\'' DROP TABLE x; '"
    assert list(statements(sql)) == ["SELECT 'x'", "SELECT 'x' DROP TABLE x", "'x'"]


def test_mysql_executable_comments_stay_visible() -> None:
    assert list(statements("/*!50000 DROP TABLE t */")) == ["/*!50000 DROP TABLE t */"] * 2


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("psql -U app -d app -c 'drop table t'", ("drop table t",)),
        ("psql --command='select 1' --command 'select 2'", ("select 1", "select 2")),
        ("mysql -u root -p -e 'select 1' db", ("select 1",)),
        ("mysql -sNe'select 1'", ("select 1",)),
        (
            "sqlite3 -cmd '.mode csv' app.db 'select 1' 'select 2'",
            (".mode csv", "select 1", "select 2"),
        ),
        ("echo 'select 1' | psql", ("select 1",)),
        ("psql <<< 'select 1'", ("select 1\n",)),
        ("cockroach sql --execute='select 1'", ("select 1",)),
        ("cockroach start", ()),
    ],
)
def test_sql_texts(command: str, expected: tuple[str, ...]) -> None:
    assert tuple(sql_texts(analyze(command).invocations[-1])) == expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("psql -c 'DROP TABLE users'", DROP),
        ("psql -c 'drop table if exists users cascade'", DROP),
        ('mysql -e "DROP DATABASE shop"', DROP),
        ("sqlite3 app.db 'drop table t'", DROP),
        ("echo 'DROP SCHEMA s CASCADE' | psql", DROP),
        ("psql app <<'SQL'\nBEGIN;\nDROP TABLE t;\nCOMMIT;\nSQL", DROP),
        ("psql -c 'ALTER TABLE t DROP COLUMN email'", DROP),
        ("mysql -e '/*!50000 DROP TABLE t */'", DROP),
        ("psql -c 'TRUNCATE sessions'", ("ask", ("data.sql-truncate",))),
        ("psql -c 'DELETE FROM users'", DELETE),
        ("psql -c 'delete from users where true'", DELETE),
        ("mysql -e 'DELETE FROM t WHERE 1=1'", DELETE),
        ("psql -c 'UPDATE users SET role = 1'", ("ask", ("data.sql-update-all",))),
        ("psql -c 'select 1'", ("allow", ())),
        ("psql -c \"SELECT 'drop table users'\"", ("allow", ())),
        ("psql -c 'select 1 -- drop table x'", ("allow", ())),
        ("psql -c 'DELETE FROM users WHERE id = 7'", ("allow", ())),
        ("psql -c 'UPDATE t SET a = 1 WHERE id = 2'", ("allow", ())),
        ("psql -c 'CREATE TABLE t (u int REFERENCES u ON DELETE CASCADE)'", ("allow", ())),
        ("mysql -e 'SELECT TRUNCATE(2.5, 0)'", ("allow", ())),
        ("grep -r 'DROP TABLE' migrations/", ("allow", ())),
        ("echo 'DROP TABLE x'", ("allow", ())),
        ("redis-cli FLUSHALL", ("ask", ("data.redis-flush",))),
        ("redis-cli -n 3 flushdb", ("ask", ("data.redis-flush",))),
        ("redis-cli get key", ("allow", ())),
        ("mongosh --eval 'db.dropDatabase()'", ("ask", ("data.mongo-drop",))),
        ("mongosh --eval 'db.c.find({})'", ("allow", ())),
        ("dropdb app", ("ask", ("data.drop-database",))),
        ("mysqladmin -u root drop app", ("ask", ("data.drop-database",))),
        ("mysqladmin ping", ("allow", ())),
    ],
)
def test_verdicts(judge: Judge, command: str, expected: tuple[str, tuple[str, ...]]) -> None:
    assert judge(command) == expected
