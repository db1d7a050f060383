"""Compose files on disk read as the containers they start (issue 18,
family 2; #8 item 3).

`docker compose up` starts what `compose.yaml` in the working directory (or
each `-f FILE`) describes. The gate reads each such file (a small regular
file, through its `World`) and judges its services as the `docker run`
lines they amount to, so a service that mounts the home and deletes it is
judged as that `docker run`; the reason says the file was read.
"""

from __future__ import annotations

from redline.decision import RuleHit
from redline.gate.world import World
from redline.rules.catalog import evaluate
from redline.shell import compose, paths
from redline.shell.analysis import Analysis, analyze
from redline.shell.invocation import Invocation

# The files `docker compose` looks for when none is named, in its order.
DEFAULT_FILES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
# A file this long or longer is not read whole: not judged from a part.
MAX_FILE = 256 * 1024 - 1
_STDIN = ("-", "/dev/stdin")


def compose_hits(analysis: Analysis, world: World, home: str) -> tuple[RuleHit, ...]:
    """The catalogue's hits for the compose files the command's calls start."""
    found: list[RuleHit] = []
    for inv in analysis.invocations:
        if inv.name not in ("docker", "podman", "nerdctl", *compose.COMPOSE_PROGRAMS):
            continue
        args = compose.compose_call(inv.name, inv.values)
        if args is None:
            continue
        files, verb, rest = compose.compose_words(args)
        if verb not in compose.STARTS or set(files) & set(_STDIN):
            continue
        found += _file_hits(inv, files, verb, rest, world, home)
    return tuple(found)


def _file_hits(
    inv: Invocation, files: tuple[str, ...], verb: str, rest: tuple[str, ...], world: World,
    home: str,
) -> list[RuleHit]:  # fmt: skip
    found: list[RuleHit] = []
    for name in files or DEFAULT_FILES:
        path = absolute(name, inv.cwd, home)
        text = None if path is None else world.read_script(path)
        if path is None or not text or len(text) >= MAX_FILE:
            continue
        directory = path.rsplit("/", 1)[0] or "/"
        lines = compose.run_lines(text, verb, rest)
        for hit in evaluate(analyze(lines, directory)) if lines else ():
            where = f"{hit.description} (in `{name}`, read from disk)"
            found.append(hit._replace(description=where, span=inv.span))
        if not files:
            break  # compose reads the first default file it finds
    return found


def absolute(name: str, cwd: str | None, home: str) -> str | None:
    path = paths.normalize(name, cwd)
    if path is None or not path.startswith(("/", "~")):
        return None
    return home.rstrip("/") + path[1:] if path.startswith("~") else path
