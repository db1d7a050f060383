"""Compose texts and pod manifests read as the `docker run` lines they amount to."""

from __future__ import annotations

import pytest

from redline.shell.compose import compose_call, compose_words, run_lines
from redline.shell.kube_pods import manifest_lines, overrides_lines


def test_compose_words() -> None:
    assert compose_words(("-f", "-", "--project-name=x", "up", "-d")) == (("-",), "up", ("-d",))
    assert compose_words(("--file=a.yml", "-f", "b.yml", "run", "app", "sh")) == (
        ("a.yml", "b.yml"),
        "run",
        ("app", "sh"),
    )
    assert compose_words(("--help",)) == ((), "", ())


@pytest.mark.parametrize(
    ("name", "values", "expected"),
    [
        ("docker", ("compose", "up"), ("up",)),
        ("docker", ("--context", "prod", "compose", "-f", "x", "up"), ("-f", "x", "up")),
        ("docker-compose", ("up",), ("up",)),
        ("docker", ("run", "img", "compose"), None),
        ("ls", ("compose",), None),
    ],
)
def test_compose_call(name: str, values: tuple[str, ...], expected: tuple[str, ...] | None) -> None:
    assert compose_call(name, values) == expected


def test_services_as_run_lines() -> None:
    text = (
        "services:\n"
        "  app:\n"
        "    image: alpine\n"
        "    privileged: true\n"
        "    network_mode: host\n"
        "    pid: host\n"
        "    cap_add: [SYS_ADMIN]\n"
        "    working_dir: /h\n"
        "    volumes:\n"
        "      - $HOME:/h:ro\n"
        "      - type: bind\n"
        "        source: ${PWD}/data\n"
        "        target: /data\n"
        "      - cache:/c\n"
        "    entrypoint: [sh, -c]\n"
        "    command: [\"rm -rf '/h'\"]\n"
        "  db:\n"
        "    image: postgres\n"
    )
    assert run_lines(text).split("\n") == [
        "docker run --privileged --pid=host --net=host --cap-add=SYS_ADMIN -v ~:/h "
        "-v ./data:/data -v cache:/c -w /h alpine sh -c 'rm -rf '\"'\"'/h'\"'\"''",
        "docker run postgres",
    ]


def test_compose_run_overrides_the_command() -> None:
    text = "services:\n  app:\n    image: alpine\n    volumes: ['~:/h']\n    command: ls\n"
    assert run_lines(text, "run", ("--rm", "app", "rm", "-rf", "/h")) == (
        "docker run -v ~:/h alpine rm -rf /h"
    )
    assert run_lines(text, "run", ("other",)) == ""


@pytest.mark.parametrize("text", ["services: [unclosed", "- a list", "services: 3", ""])
def test_texts_that_start_nothing(text: str) -> None:
    assert run_lines(text) == ""


def test_pod_manifests() -> None:
    text = (
        "apiVersion: batch/v1\nkind: CronJob\nspec:\n  jobTemplate:\n    spec:\n      template:\n"
        "        spec:\n          hostNetwork: true\n          containers:\n"
        "          - image: alpine\n            command: [rm, -rf, /host/etc]\n"
        "            volumeMounts: [{name: root, mountPath: /host}]\n"
        "          volumes: [{name: root, hostPath: {path: /}}]\n"
        "---\nkind: ConfigMap\ndata: {a: b}\n"
    )
    assert manifest_lines(text) == "docker run --net=host -v /:/host alpine rm -rf /host/etc"
    assert manifest_lines("kind: [") == ""


def test_kubectl_run_overrides() -> None:
    overrides = (
        '{"spec":{"hostPID":true,"containers":[{"name":"x","image":"alpine",'
        '"securityContext":{"privileged":true}}]}}'
    )
    assert overrides_lines(overrides, "alpine", ("nsenter", "-t", "1", "sh")) == (
        "docker run --privileged --pid=host alpine nsenter -t 1 sh"
    )
    assert overrides_lines("{not json", "alpine", ()) == ""
