"""A home or credential folder served on the network (issue 18, family 1):
`python -m http.server -d ~`, `npx serve ~/.ssh`, `php -S 0.0.0.0:80 -t ~`
hand every key in it to whoever reaches the port. Served on a loopback
address, or a folder that holds no secret, it is everyday work."""

from __future__ import annotations

from collections.abc import Sequence

from redline.decision import Severity
from redline.fasttuple import NamedTuple
from redline.rules.model import Rule, rule
from redline.rules.secrets import canonical, is_secret
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

S = Severity.SENSITIVE

_LOOPBACK = ("127.", "localhost", "::1", "[::1]", "ip6-localhost")
# Package runners that fetch and run a server (`npx serve DIR`).
_RUNNERS = frozenset({"npx", "pnpx", "bunx"})


_SERVERS = ("python", "python3", "python2", "npx", "pnpx", "bunx", "serve", "http-server",
            "live-server", "miniserve", "darkhttpd", "php", "ruby", "busybox", "updog")  # fmt: skip


class Served(NamedTuple):
    """A folder served, and the address it listens on (`""`: every address)."""

    folder: str | None
    address: str


def _value(values: Sequence[str], *names: str) -> str | None:
    for k, value in enumerate(values):
        for name in names:
            if value == name and k + 1 < len(values):
                return values[k + 1]
            if name.startswith("--") and value.startswith(name + "="):
                return value[len(name) + 1 :]
    return None


def _operands(values: Sequence[str], valued: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    skip = False
    for value in values:
        if skip:
            skip = False
        elif value.startswith("-"):
            skip = value in valued
        else:
            found.append(value)
    return found


def _python(values: Sequence[str], cwd: str | None) -> Served | None:
    if "-m" not in values:
        return None
    module = values[values.index("-m") + 1] if values.index("-m") + 1 < len(values) else ""
    if module not in ("http.server", "SimpleHTTPServer"):
        return None
    rest = values[values.index("-m") + 2 :]
    folder = _value(rest, "-d", "--directory") or cwd
    return Served(folder, _value(rest, "-b", "--bind") or "")


def _node(name: str, values: Sequence[str], cwd: str | None) -> Served | None:
    operands = _operands(values, ("-p", "--port", "-l", "--listen", "-a", "-c", "--config"))
    folder = operands[0] if operands else cwd
    address = _value(values, "-l", "--listen", "-a", "--host") or ""
    if name == "live-server":
        address = _value(values, "--host") or ""
    return Served(folder, address.split("://")[-1])


def served(inv: Invocation) -> Served | None:
    """What a static file server serves, and where it listens."""
    name, values, cwd = inv.name, list(inv.values), inv.cwd
    if name in _RUNNERS:
        rest = [v for v in values if v not in ("-y", "--yes")]
        if not rest:
            return None
        name, values = rest[0].rsplit("@", 1)[0] if rest[0][1:].find("@") > 0 else rest[0], rest[1:]
    if name.startswith("python"):
        return _python(values, cwd)
    if name in ("serve", "http-server", "live-server", "miniserve", "darkhttpd"):
        return _node(name, values, cwd)
    if name == "php" and "-S" in values:
        folder = _value(values, "-t") or cwd
        return Served(folder, (_value(values, "-S") or "").rsplit(":", 1)[0])
    if name == "ruby" and "httpd" in values and any(v.startswith("-run") for v in values):
        rest = values[values.index("httpd") + 1 :]
        operands = _operands(rest, ("-p", "--port", "-b", "--bind-address"))
        return Served(operands[0] if operands else cwd, _value(rest, "-b", "--bind-address") or "")
    if name == "busybox" and values[:1] == ["httpd"]:
        return Served(_value(values, "-h") or cwd, (_value(values, "-p") or "").rpartition(":")[0])
    if name == "updog":
        return Served(_value(values, "-d", "--directory") or cwd, "")
    return None


def _holds_secrets(folder: str, cwd: str | None) -> bool:
    path = canonical(folder, cwd)
    if path is None:
        return False
    return paths.is_root(path) or paths.is_home_dir(path) or path == "/home" or is_secret(path)


def _serves_secrets(inv: Invocation, analysis: Analysis) -> bool:
    found = served(inv)
    if found is None or found.folder is None:
        return False
    if found.address.startswith(_LOOPBACK):
        return False
    return _holds_secrets(found.folder, inv.cwd)


HOME_SERVER_RULES: tuple[Rule, ...] = (
    rule(
        "secret.served",
        "secret",
        S,
        "serve a home directory or a credential folder on the network: whoever reaches the port "
        "can download the keys in it",
        "serve only the folder meant to be shared, on `127.0.0.1` (`--bind 127.0.0.1`)",
        programs=_SERVERS,
        test=_serves_secrets,
        must_match=(
            "python -m http.server -d ~ --bind 0.0.0.0",
            "python3 -m http.server 8000 --directory ~/.ssh",
            "cd ~ && python3 -m http.server 9000",
            "npx serve ~/.ssh",
            "php -S 0.0.0.0:8000 -t ~",
            "ruby -run -e httpd ~ -p 8000",
        ),
        must_not_match=(
            "python -m http.server 8000 --bind 127.0.0.1 -d ~",
            "python3 -m http.server 8000 -d site/",
            "npx serve dist",
            "php -S localhost:8000 -t ~",
            "python3 -m http.server",
            "python3 -m pip install serve",
        ),
    ),
)
