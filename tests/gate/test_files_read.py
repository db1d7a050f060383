"""Compose files and Dockerfiles on disk, read by the gate and judged with
the command that starts or builds them (issue 18)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.decision import Verdict
from redline.gate.actions import ToolCall
from redline.gate.world import World
from redline.gatekeeper import Gate

WIPES_HOME = (
    "services:\n  app:\n    image: alpine\n    volumes:\n      - ~:/h\n    command: rm -rf /h\n"
)
FILES = {
    "/srv/app/compose.yaml": WIPES_HOME,
    "/srv/legacy/docker-compose.yml": "services:\n  app:\n    image: alpine\n    volumes:\n"
    "      - type: bind\n        source: /\n        target: /host\n"
    "    command: [sh, -c, 'rm -rf /host/etc']\n",
    "/srv/ok/compose.yaml": "services:\n  web:\n    build: .\n    ports: ['8000:8000']\n"
    "    volumes:\n      - .:/app\n      - cache:/root/.cache\n    command: npm run dev\n"
    "  db:\n    image: postgres:16\n    volumes:\n      - pgdata:/var/lib/postgresql/data\n"
    "volumes:\n  cache: {}\n  pgdata: {}\n",
    "/srv/ok/deploy/prod.yml": "services:\n  dev:\n    image: alpine\n    privileged: true\n",
    "/srv/big/compose.yaml": WIPES_HOME + "#" * (256 * 1024),
    "/srv/bad/compose.yaml": "services: [unclosed\n",
    "/srv/app/Dockerfile": "FROM node:20\nWORKDIR /app\nCOPY . .\nRUN npm ci\n",
    "/srv/leaky/Dockerfile": "FROM node:20\nCOPY .env /app/.env\nCOPY id_rsa /root/.ssh/\n",
    "/srv/app/build/Dockerfile.prod": "FROM alpine\nADD ./keys/id_ed25519 /root/.ssh/\n",
    "/srv/leaky/ctx/Containerfile": "FROM alpine\nENV GITHUB_TOKEN=ghp_x\n",
}


HOME_WIPED = (Verdict.DENY, ["container.privileged", "fs.delete-home"], True)
SYSTEM_WIPED = (Verdict.DENY, ["container.privileged", "fs.delete-system-dir"], True)
INTO_IMAGE = (Verdict.ASK, ["secret.into-image"], True)
PRIVILEGED = (Verdict.ASK, ["container.privileged"], True)
ALLOWED = (Verdict.ALLOW, [], False)


class Disk(World):
    def read_script(self, path: str) -> str | None:
        return FILES.get(path)


@pytest.fixture
def judge(make_gate: Callable[..., Gate]) -> Callable[[str, str], tuple[Verdict, list[str], bool]]:
    gate = make_gate(world=Disk())

    def run(command: str, cwd: str) -> tuple[Verdict, list[str], bool]:
        decision = gate.check(ToolCall("Bash", {"command": command}, cwd=cwd))
        return decision.verdict, sorted(set(decision.rule_ids)), "read from disk" in decision.reason

    return run


@pytest.mark.parametrize(
    ("command", "cwd", "expected"),
    [
        # the compose file in the working directory mounts the home and deletes it
        ("docker compose up -d", "/srv/app", HOME_WIPED),
        ("cd /srv/app && docker compose up", "/tmp", HOME_WIPED),
        ("docker-compose up", "/srv/app", HOME_WIPED),
        ("podman compose run app", "/srv/app", HOME_WIPED),
        ("docker compose -f /srv/app/compose.yaml up", "/tmp", HOME_WIPED),
        # the second default name, the long volume syntax
        ("docker compose up", "/srv/legacy", SYSTEM_WIPED),
        ("docker compose -f deploy/prod.yml up -d", "/srv/ok", PRIVILEGED),
        # an ordinary project, a verb that starts nothing, files not read or not parsed
        ("docker compose up -d", "/srv/ok", ALLOWED),
        ("docker compose logs -f", "/srv/app", ALLOWED),
        ("docker compose down", "/srv/app", ALLOWED),
        ("docker compose up", "/srv/big", ALLOWED),
        ("docker compose up", "/srv/bad", ALLOWED),
        ("docker compose up", "/srv/none", ALLOWED),
        # Dockerfiles that copy credentials in
        ("docker build -t app .", "/srv/leaky", INTO_IMAGE),
        ("docker build -t app -f build/Dockerfile.prod .", "/srv/app", INTO_IMAGE),
        ("podman build ctx", "/srv/leaky", INTO_IMAGE),
        ("docker buildx build --push -t r/app /srv/leaky", "/tmp", INTO_IMAGE),
        ("docker build -t app .", "/srv/app", ALLOWED),
        ("docker run --rm app", "/srv/leaky", ALLOWED),
    ],
)  # fmt: skip
def test_files_read_from_disk(
    judge: Callable[[str, str], tuple[Verdict, list[str], bool]],
    command: str,
    cwd: str,
    expected: tuple[Verdict, list[str], bool],
) -> None:
    assert judge(command, cwd) == expected
