"""SQL and other database commands that destroy data."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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
        ("echo 'select 1' | psql", ("select 1\n",)),
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


@pytest.fixture
def sql_dir(tmp_path: Path) -> Path:
    (tmp_path / "drop.sql").write_text("BEGIN;\nDROP TABLE orders;\nCOMMIT;\n", encoding="utf-8")
    (tmp_path / "report.sql").write_text("SELECT count(*) FROM orders;\n", encoding="utf-8")
    (tmp_path / "main.sql").write_text("\\i drop.sql\n", encoding="utf-8")
    (tmp_path / "big.sql").write_text("DROP TABLE x;\n" + "-- pad\n" * 40_000, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("psql -f drop.sql", DROP),
        ("psql --file=drop.sql app", DROP),
        ("mysql app < drop.sql", DROP),
        ("sqlite3 app.db '.read drop.sql'", DROP),
        ("cd sub && psql -f ../drop.sql", DROP),
        ("psql -f report.sql", ("allow", ())),
        ("mysql app < report.sql", ("allow", ())),
        ("psql -f missing.sql", ("allow", ())),
        # a file larger than MAX_SQL_FILE is judged by its name alone, as before
        ("psql -f big.sql", ("allow", ())),
        ("cat drop.sql", ("allow", ())),
    ],
)
def test_sql_files_on_disk_are_read(
    judge: Judge, sql_dir: Path, command: str, expected: tuple[str, tuple[str, ...]]
) -> None:
    (sql_dir / "sub").mkdir()
    assert judge(command, cwd=str(sql_dir)) == expected


def test_a_file_included_from_sql_text_is_read(judge: Judge, sql_dir: Path) -> None:
    # `main.sql` only includes `drop.sql`: one level of files is read, not more.
    assert judge("psql -f main.sql", cwd=str(sql_dir)) == ("allow", ())
    assert judge("psql -c '\\i drop.sql'", cwd=str(sql_dir)) == DROP


def test_a_relative_sql_file_with_no_known_directory_is_not_read(judge: Judge) -> None:
    assert judge("psql -f drop.sql") == ("allow", ())
