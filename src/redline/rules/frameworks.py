"""Application frameworks' database commands that drop or reset a whole
database: `manage.py flush`, `prisma migrate reset`, `rails db:drop`,
`alembic downgrade base`, `artisan migrate:fresh` (issue 13, family 9)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from redline.decision import Severity
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

D = Severity.DANGEROUS

_RESET = "reset"
# Per tool: its first words that reset or drop the database, and options that
# make an otherwise ordinary command do so.
_RAKE_TASKS = frozenset({
    "db:drop", "db:drop:all", "db:reset", "db:purge", "db:purge:all", "db:schema:load",
    "db:structure:load", "db:migrate:reset", "db:truncate_all", "db:seed:replant", "db:setup",
})  # fmt: skip


def _manage(args: Sequence[str]) -> bool:
    verb = args[0] if args else ""
    return verb in ("flush", "reset_db", "reset_schema") or (verb == "migrate" and "zero" in args)


def _prisma(args: Sequence[str]) -> bool:
    if tuple(args[:2]) == ("migrate", "reset"):
        return True
    forced = any(a in ("--force-reset", "--accept-data-loss") for a in args)
    return tuple(args[:2]) == ("db", "push") and forced


def _rake(args: Sequence[str]) -> bool:
    return any(a.partition("[")[0] in _RAKE_TASKS for a in args)


def _alembic(args: Sequence[str]) -> bool:
    operands = [a for a in args if not a.startswith("-")]
    if "downgrade" not in operands:
        return False
    target = operands[operands.index("downgrade") + 1 :][:1]
    return target == ["base"] or any(t.endswith("@base") for t in target)


def _words(verbs: frozenset[str]) -> Callable[[Sequence[str]], bool]:
    def test(args: Sequence[str]) -> bool:
        return bool(args) and args[0] in verbs

    return test


def _pairs(*prefixes: tuple[str, ...]) -> Callable[[Sequence[str]], bool]:
    def test(args: Sequence[str]) -> bool:
        return tuple(args[: len(prefixes[0])]) in prefixes

    return test


def _rollback_all(verb: str) -> Callable[[Sequence[str]], bool]:
    def test(args: Sequence[str]) -> bool:
        return bool(args) and args[0] == verb and "--all" in args

    return test


_TOOLS: dict[str, Callable[[Sequence[str]], bool]] = {
    "manage": _manage,
    "django-admin": _manage,
    "prisma": _prisma,
    "rails": _rake,
    "rake": _rake,
    "alembic": _alembic,
    "flask": lambda args: args[:1] == ["db"] and _alembic(args[1:]),
    "artisan": _words(frozenset({"migrate:fresh", "migrate:reset", "migrate:refresh", "db:wipe"})),
    "mix": lambda args: (
        (bool(args) and args[0] in ("ecto.drop", "ecto.reset"))
        or _rollback_all("ecto.rollback")(args)
    ),
    "sequelize": _words(frozenset({"db:drop", "db:migrate:undo:all", "db:seed:undo:all"})),
    "typeorm": _words(frozenset({"schema:drop"})),
    "knex": _rollback_all("migrate:rollback"),
    "supabase": _pairs(("db", _RESET)),
}
_ALIASES = {"sequelize-cli": "sequelize", "typeorm-ts-node-commonjs": "typeorm",
            "typeorm-ts-node-esm": "typeorm", "django": "django-admin"}  # fmt: skip
_EXTENSIONS = (".py", ".js", ".cjs", ".mjs", ".php", ".exs", ".rb")


def _tool_name(word: str) -> str:
    name = word.rsplit("/", 1)[-1].lower()
    if name.startswith("@"):  # `npx @scope/tool`
        return ""
    name = name.partition("@")[0]  # `npx prisma@5`
    for extension in _EXTENSIONS:
        name = name.removesuffix(extension)
    return _ALIASES.get(name, name)


def _framework_reset(inv: Invocation, analysis: Analysis) -> bool:
    # The tool is the program itself or one of the first words a runner, an
    # interpreter or a container is given (`npx prisma`, `python -m alembic`,
    # `sail artisan`, `docker compose exec web python manage.py`).
    words = [w.value for w in inv.argv]
    for k, word in enumerate(words[:12]):
        check = _TOOLS.get(_tool_name(word))
        if check is not None:
            args = words[k + 1 :]
            return not any(a in ("--help", "-h") for a in args) and check(args)
    return False


_RUNNERS = ("npx", "bunx", "pnpx", "yarn", "pnpm", "npm", "bun", "uvx", "pipx", "deno", "node")
_INTERPRETERS = ("python", "python3", "python2", "pypy3", "php", "ruby", "elixir", "py",
                 *(f"python3.{minor}" for minor in range(6, 16)))  # fmt: skip
_SCRIPTS = (
    "manage.py",
    "./manage.py",
    "bin/rails",
    "./bin/rails",
    "bin/rake",
    "./bin/rake",
    "artisan",
    "./artisan",
    "bin/knex",
    "sail",
    "vendor/bin/sail",
    "./vendor/bin/sail",
)
# Where a framework command runs inside a container: `docker compose exec`,
# `kubectl exec` (neither is read as a carrier of the command it runs).
_CONTAINERS = ("docker", "podman", "docker-compose", "kubectl", "oc")

FRAMEWORK_RULES: tuple[Rule, ...] = (
    rule(
        "data.framework-reset",
        "data",
        D,
        "a framework command that drops, flushes or resets the whole database",
        "back up the database and ask the owner; run a migration forward instead of resetting",
        programs=(*_RUNNERS, *_INTERPRETERS, *_SCRIPTS, *_CONTAINERS, *_TOOLS, *_ALIASES),
        test=_framework_reset,
        must_match=(
            "python manage.py flush --noinput",
            "./manage.py flush --no-input --database=default",
            "python3 manage.py migrate shop zero",
            "npx prisma migrate reset --force",
            "pnpm exec prisma db push --force-reset",
            "bin/rails db:drop",
            "bundle exec rake db:reset",
            "RAILS_ENV=production rails db:schema:load",
            "alembic -c prod.ini downgrade base",
            "python3.12 -m alembic downgrade base",
            "php artisan migrate:fresh --force",
            "mix ecto.drop",
            "npx sequelize-cli db:drop",
            "npx supabase db reset --linked",
            "python -m django flush --noinput",
            "./vendor/bin/sail artisan migrate:fresh --seed",
            "docker compose exec -T web python manage.py flush --no-input",
        ),
        must_not_match=(
            "python manage.py migrate",
            "python manage.py flush --help",
            "npx prisma migrate status",
            "bin/rails db:migrate",
            "alembic upgrade head",
            "alembic downgrade -1",
            "php artisan migrate:status",
            "mix ecto.migrate",
            "echo rails db:drop",
            "supabase db diff",
            "docker compose exec web python manage.py migrate",
            "docker run -v /srv/manage.py:/x img flush",
        ),
    ),
)
