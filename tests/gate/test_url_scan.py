"""`no_url_reaches` (one scan of a long text's URLs) never clears a text
in which `urls` finds a URL of the approval service: checked on the cases
of `self_protection.yaml` and on random texts, short and long."""

from __future__ import annotations

import random
from pathlib import Path

import yaml

from redline.gate.service_contact import _reaches, no_url_reaches, urls

HERE = Path(__file__).parent
NAMES = frozenset({"devbox", "devbox.lan"})
PORTS = [frozenset({8787}), frozenset({8787, 443}), frozenset({80})]

_SCHEMES = ["http", "https", "ws", "git+ssh", "ftp", "x1", "", " ", "é", "1a", "-"]
_USERS = ["", "u@", "u:p@", "@", "a b@"]
_HOSTS = ["localhost", "127.0.0.1", "[::1]", "example.org", "%6cocalhost", "devbox", "a",
          "[a://b]", "[http://localhost:8787]", "127.0.0.1.nip.io", "", "[", "$HOST",
          "x.lvh.me", "0", "[::ffff:127.0.0.1]", "api.example.com", "LOCALHOST"]  # fmt: skip
_PORTS = ["", ":8787", ":", ":80", ":443", ":99999", ":$P", ":{port}", ":08787", ":²", ":1"]
_TAILS = ["", "/", "/api/held/1", "?q=1", "#x", "'", '"', " ", "\n", "`", "/a://b"]


def _url(rng: random.Random) -> str:
    return "".join(rng.choice(part) for part in (_SCHEMES, ["://"], _USERS, _HOSTS, _PORTS, _TAILS))


def _text(rng: random.Random, long: bool) -> str:
    pieces = []
    for _ in range(rng.randint(1, 6)):
        pieces.append(_url(rng))
        pieces.append(rng.choice([" ", "\n", "x" * 5000 if long else "y", ", ", "=", "(", "a"]))
    return "".join(pieces)


def _reference(text: str, ports: frozenset[int]) -> bool:
    return any(_reaches(host, port, ports, NAMES) for host, port in urls(text))


def _cleared_yet_reaches(text: str) -> bool:
    return any(no_url_reaches(text, p, NAMES) and _reference(text, p) for p in PORTS)


def test_never_clears_a_case_that_reaches() -> None:
    cases = yaml.safe_load((HERE / "self_protection.yaml").read_text(encoding="utf-8"))
    texts = [
        str(example)
        for family in cases
        for key in ("must_match", "must_not_match")
        for example in family.get(key) or []
    ]
    assert texts
    for text in texts:
        for padded in (text, text + " " * 5000, "x" * 5000 + " " + text):
            assert not _cleared_yet_reaches(padded), padded[:200]


def test_never_clears_a_random_text_that_reaches() -> None:
    rng = random.Random(18)
    reaching = 0
    for i in range(600):
        text = _text(rng, long=i % 3 == 0)
        assert not _cleared_yet_reaches(text), text[:300]
        reaching += _reference(text, PORTS[0])
    assert reaching > 50  # the random texts do name the service


def test_clears_a_long_file_of_other_hosts() -> None:
    text = "".join(f'{{"url": "https://example.org/items/{k}"}},\n' for k in range(800))
    assert no_url_reaches(text, PORTS[0], NAMES)
    assert not no_url_reaches(text + "http://localhost:8787/", PORTS[0], NAMES)
