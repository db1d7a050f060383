"""Talking to the approval service directly: only the owner answers held
calls, so the agent never reaches the service's port on this machine (F-GATE-3).

A call reaches the service when it names a host that is this machine and a
port the service listens on: in a URL (`http://127.1:8787/api/...`), in the
words of one program (`nc localhost 8787`, `socat - TCP:[::1]:8787`,
`curl --connect-to ::127.0.0.1:8787 http://x/`), in bash's `/dev/tcp/HOST/PORT`
(and gawk's `/inet/tcp/0/HOST/PORT`), or in code (`urlopen('http://...')`,
`socket.create_connection(('localhost', 8787))`). Its Unix sockets are
protected paths (`redline.gate.protected`): naming one is the same.

A host is this machine when it is a loopback or unspecified address in any
spelling (`redline.gate.loopback`), a `localhost` name, one of the machine's
own names, a one-label name (the hosts file or a search domain may point it
here), or a name that spells a loopback address in it (`127.0.0.1.nip.io`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from redline.decision import RuleHit, Span
from redline.gate import loopback, own_cli
from redline.gate.actions import Action
from redline.gate.loopback import is_loopback
from redline.gate.protected import NeverRunKind
from redline.shell.analysis import Analysis
from redline.shell.carriers import carried_scripts
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC
from redline.shell.wrappers import split_wrapper

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.gate.never_run import Guard

# What follows a URL's `://`: the user, the host, the port.
_AFTER_SCHEME = r"(?:[^/?#\s@'\"`]*@)?(\[[^\]\s]*\]|[^/?#:\s'\"`]*)(?::([^/?#\s'\"`]*))?"
_URL = lazy_regex(r"\b([a-z][a-z0-9+.-]*)://" + _AFTER_SCHEME, re.I)
_HOST_AND_PORT = lazy_regex(_AFTER_SCHEME)
# All that `_AFTER_SCHEME` reads after each `://`, in one scan that `://` starts.
_AUTHORITY = lazy_regex(
    r"://((?:[^/?#\s@'\"`]*@)?(?:\[[^\]\s]*\]|[^/?#:\s'\"`]*)(?::[^/?#\s'\"`]*)?)"
)
# Public names that resolve to a loopback address (and their subdomains).
_LOOPBACK_DOMAINS = ("localtest.me", "lvh.me", "vcap.me", "fuf.me", "localho.st", "lacolhost.com")
# Dots a resolver reads as dots (IDNA): ideographic and full-width.
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_DEFAULT_PORT = {"http": 80, "ws": 80, "https": 443, "wss": 443, "ftp": 21, "gopher": 70}
_SCHEME_PORTS = frozenset(_DEFAULT_PORT.values())
_TWO_DIGITS = lazy_regex(r"\d\d")
_DEV_TCP = lazy_regex(
    r"/dev/(?:tcp|udp)/([^/\s'\"`]+)/([^/\s'\"`;|&)]+)|/inet[46]?/(?:tcp|udp)/[^/\s]+/([^/\s'\"`]+)/([^/\s'\"`;|&)]+)"
)
# Where a word may hide a host or a port: between these.
_SEPARATORS = lazy_regex(r"[\s/@,=;:'\"()<>|&!?#]+")
_BRACKETED = lazy_regex(r"\[([0-9a-fA-F:.%]+)\]")
_EMBEDDED_LOOPBACK = lazy_regex(
    r"(?:^|[.-])(?:127[.-]\d+[.-]\d+[.-]\d+|7f[0-9a-f]{6}|0[.-]0[.-]0[.-]0)[.-]", re.I
)
# Code that reaches a network address.
_CODE_CONNECTS = lazy_regex(
    r"connect|urlopen|urllib|requests\.|httpx|aiohttp|http\.client|HTTPConnection|socket|fetch\s*\(|"
    r"XMLHttpRequest|\bnet\.|https?\.(?:request|get)|Net::HTTP|TCPSocket|IO::Socket|fsockopen|curl|"
    r"file_get_contents|/dev/tcp|/inet|WebSocket|open-uri|LWP|HTTP::Tiny|axios|got\(|undici|"
    r"['\"]https?['\"]|\bhost(?:name)?['\"]?\s*[:=]"
)
# A literal in each of `_CODE_CONNECTS`'s alternatives: a long text with none
# of them is not searched (an alternation of thirty words scans slowly).
_CONNECT_WORDS = ("connect", "urlopen", "urllib", "requests.", "httpx", "aiohttp", "http",
                  "HTTP", "socket", "fetch", "net.", "Net::", "Socket", "fsockopen", "curl",
                  "XMLHttp", "file_get_contents", "/dev/tcp", "/inet", "open-uri", "LWP",
                  "axios", "got(", "undici", "host")  # fmt: skip
_CODE_HOST = lazy_regex(
    r"""['"]([^'"\s]{1,253})['"]|gethostname\s*\(|getfqdn\s*\(|hostname\s*\(|(['"])\2\s*,"""
)
# Programs that only print, search or list what they are given: naming the
# port there is data (`echo http://127.0.0.1:8787`, `ss -ltn | grep 8787`).
SHOWS_ONLY = frozenset(
    {
        "echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ss", "netstat", "lsof",
        "ps", "pgrep", "dig", "host", "nslookup", "getent", "ping", "ping6", "traceroute",
        "man", "tldr", "ls", "stat", "cat", "less", "more", "head", "tail", "wc", "jq", "yq",
        "sort", "uniq", "cut", "tr", "column", "true", "false", ":", "test", "[", "[[",
        "basename", "dirname", "realpath", "readlink", "tee", "git", "sed", "diff", "nl",
    }
)  # fmt: skip
# httpie and its kin read `:8787/path` as `localhost:8787/path`.
_HTTPIE = frozenset({"http", "https", "xh", "xhs", "httpie"})


def may_be_here(host: str, names: frozenset[str], loose: bool = True) -> bool:
    """Could `host` reach this machine? `loose` where the word is surely a
    host (a URL's, `/dev/tcp`'s): then a one-label name or a computed one
    may be this machine too."""
    if not host:
        return False
    if DYNAMIC in host or host.startswith("$"):
        return loose
    if not host.isascii():
        import unicodedata  # a resolver maps `①②⑦` to `127` (UTS 46)

        host = unicodedata.normalize("NFKC", host.translate(_DOTS))
    if is_loopback(host, names):
        return True
    bare = host.lower().strip("[]").rstrip(".")
    if any(bare == d or bare.endswith("." + d) for d in _LOOPBACK_DOMAINS):
        return True
    if loose and "." not in bare and ":" not in bare and not bare.isdigit():
        return bare.replace("-", "").replace("_", "").isalnum()
    return "." in bare and bool(_EMBEDDED_LOOPBACK.search(bare + "."))


def _port_of(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 5 else None


def _url_matches(text: str) -> Iterator[re.Match[str]]:
    """Each URL of `text`, found from its `://` (a scan of every word start
    for a scheme costs a long file tens of milliseconds)."""
    if len(text) < 4096:
        yield from _URL.finditer(text)
        return
    end = 0
    at = text.find("://")
    while at >= 0:
        start = at
        while start > end and (text[start - 1].isalnum() or text[start - 1] in "+.-"):
            start -= 1
        match = _URL.search(text, start, at + 4096) if start < at else None
        if match is not None and match.start() <= at:
            yield match
            end = match.end()
        at = text.find("://", max(at + 3, end))


def no_url_reaches(text: str, ports: frozenset[int], names: frozenset[str]) -> bool:
    """True when surely no URL of `text` reaches the service: each distinct
    text after a `://` (found in one scan; a long file repeats a few hosts)
    names a host not of this machine, or a port written out that is not the
    service's. False is "maybe": `urls` then reads each URL."""
    for authority in set(_AUTHORITY.findall(text)):
        # One may hide the next URL's start (`[a://b]`, `a:` then `//`) or be cut by the
        # URL scan (a very long one): those are read the slow way.
        if "://" in authority or authority.endswith(":") or len(authority) > 4000:
            return False
        match = _HOST_AND_PORT.match(authority)
        if match is None:  # it always matches: what `_AUTHORITY` found
            return False
        host, port = match.group(1), match.group(2)
        if "%" in host:
            from urllib.parse import unquote

            host = unquote(host)
        if not may_be_here(host, names):
            continue
        if port is None and not ports & _SCHEME_PORTS:
            continue  # the scheme's port, never the service's
        if port is None or not (port.isascii() and port.isdigit()) or _port_of(port) in ports:
            return False
    return True


def urls(text: str) -> Iterator[tuple[str, int | str | None]]:
    """The host and port of each URL in `text` (the scheme's port when none
    is given; the port as written when it is computed at run time)."""
    for match in _url_matches(text):
        scheme, host, port = match.group(1).lower(), match.group(2), match.group(3)
        if "%" in host:  # URL parsers decode a host's escapes (`%6cocalhost`, `%31%32%37.0.0.1`)
            from urllib.parse import unquote

            host = unquote(host)
        scheme = scheme.rsplit("+", 1)[-1]
        if port is not None and not (port.isascii() and port.isdigit()):
            yield host, port or "?"  # `:` then a port computed at run time (`:{port}`, `:' + p`)
            continue
        number = _port_of(port) if port else _DEFAULT_PORT.get(scheme)
        yield host, number


def dev_tcp(text: str) -> Iterator[tuple[str, str]]:
    """The host and port (as written) of bash `/dev/tcp/H/P` and gawk `/inet/tcp/0/H/P`."""
    if "/dev/" not in text and "/inet" not in text:
        return
    for match in _DEV_TCP.finditer(text):
        host = match.group(1) or match.group(3)
        port = match.group(2) or match.group(4)
        yield host, port


def _reaches(
    host: str, port: str | int | None, ports: frozenset[int], names: frozenset[str]
) -> bool:
    if not may_be_here(host, names):
        return False
    if isinstance(port, str):
        number = _port_of(port)
        return number in ports if number is not None else True  # computed: may be the service's
    return port in ports


def words_reach(
    words: Iterable[str], ports: frozenset[int], names: frozenset[str], program: str = ""
) -> str | None:
    """What in one program's words reaches the service, or `None`. URLs are
    read exactly; other words are taken apart, and a host of this machine in
    one with a service port in any other (or the same) counts."""
    words = list(words)
    if program in _GLOBBING_CLIENTS and any("{" in w or "[" in w for w in words):
        words = [spelled for word in words for spelled in curl_globs(word)]
    if program in _URL_CLIENTS:  # `curl localhost:$PORT` is `http://localhost:$PORT`
        words = [_with_scheme(w, names) for w in words]
    text = " ".join(words)
    named = any(str(p) in text for p in ports) or "/dev/" in text or "/inet" in text
    named = named or ("://" in text and (DYNAMIC in text or "$" in text))
    if not named and ("://" not in text or not ports & _SCHEME_PORTS):
        return None  # no port of the service is named: most commands stop here
    host_seen: str | None = None
    port_seen: str | None = None
    for word in words:
        for host, port in dev_tcp(word):
            if _reaches(host, port, ports, names):
                return f"`{word}` opens a connection to the approval service"
        if "://" in word:
            for host, number in urls(word):
                if _reaches(host, number, ports, names):
                    return f"`{word}` is the approval service"
            continue
        if (
            program in _HTTPIE
            and word.startswith(":")
            and _port_of(word[1:].split("/", 1)[0]) in ports
        ):
            return f"`{word}` is the approval service on this machine"
        for token in _tokens(word):
            if port_seen is None and _port_of(token) in ports:
                port_seen = word
            elif host_seen is None and may_be_here(token, names, loose=False):
                host_seen = word
        if host_seen is not None and port_seen is not None:
            both = (
                f"`{host_seen}`" if host_seen == port_seen else f"`{host_seen}` and `{port_seen}`"
            )
            return f"{both} name the approval service on this machine"
    return None


# Clients that expand `{a,b}` and `[1-9]` in a URL themselves (curl's "globbing").
_GLOBBING_CLIENTS = frozenset({"curl"})
_CURL_SET = lazy_regex(r"\{([^{}]*)\}")
_CURL_RANGE = lazy_regex(r"\[(?:(\d{1,5})-(\d{1,5})|([a-zA-Z])-([a-zA-Z]))(?::\d+)?\]")
_GLOB_LIMIT = 64


def curl_globs(word: str) -> list[str]:
    """`word` and the URLs curl makes of it (`878{7}` is `8787`, `[1-1]` is
    `1`), at most `_GLOB_LIMIT` of them; IPv6 brackets (`[::1]`) are no range."""
    found = [word]
    for _ in range(8):  # sets and ranges, one at a time, a bounded number of rounds
        grown: list[str] = []
        for text in found:
            match = _CURL_SET.search(text) or _CURL_RANGE.search(text)
            if match is None:
                grown.append(text)
                continue
            head, tail = text[: match.start()], text[match.end() :]
            if match.group(0).startswith("{"):
                options = match.group(1).split(",")
            elif match.group(1) is not None:
                low, high = int(match.group(1)), int(match.group(2))
                options = [str(n) for n in range(low, min(high, low + _GLOB_LIMIT) + 1)]
            else:
                low, high = ord(match.group(3)), ord(match.group(4))
                options = [chr(c) for c in range(low, min(high, low + _GLOB_LIMIT) + 1)]
            grown.extend(head + option + tail for option in options)
        if grown == found:
            break
        found = grown[:_GLOB_LIMIT]
    return [word, *found] if found != [word] else found


# Clients that read a word without a scheme as an `http://` URL.
_URL_CLIENTS = frozenset({"curl", "wget", "wget2", "aria2c", "xh", "xhs", "http", "https", "lynx"})
_HOST_PORT = lazy_regex(r"\A(\[[0-9A-Fa-f:.%]+\]|[\w.%-]+):([^/\s]+)(?:/|\Z)")


def _with_scheme(word: str, names: frozenset[str]) -> str:
    """`HOST:PORT[/...]` with a host of this machine, as the client reads it."""
    if "://" in word or word.startswith("-") or ":" not in word:
        return word
    match = _HOST_PORT.match(word)
    if match is None or not may_be_here(match.group(1), names, loose=False):
        return word
    return "http://" + word


def _tokens(word: str) -> list[str]:
    found = [m.group(1) for m in _BRACKETED.finditer(word)]
    if ":" in word and _is_ipv6ish(word):
        found.append(word)
    found.extend(t for t in _SEPARATORS.split(_BRACKETED.sub(" ", word)) if t)
    return found


def _is_ipv6ish(word: str) -> bool:
    return all(c in "0123456789abcdefABCDEF:.%" for c in word) and word.count(":") >= 2


# What separates a socket's path from the rest of an address word (`UNIX-CONNECT:`, `,fork`).
_ADDRESS_PARTS = lazy_regex(r"[:=,]|//(?=[~/])")
_PROXY = lazy_regex(r"(?i)\b(?:https?|all|ftp|socks5?|no)_proxy\s*=\s*['\"]?([^\s'\";]+)")


def proxy_reaches(text: str, ports: frozenset[int], names: frozenset[str]) -> str | None:
    """A proxy set to the service (`http_proxy=http://127.0.0.1:8787 curl ...`):
    every request then goes to it."""
    for match in _PROXY.finditer(text):
        value = match.group(1)
        where = words_reach([value if "://" in value else "http://" + value], ports, names)
        if where:
            return f"a proxy of `{value}` sends requests to the approval service"
    return None


def code_reaches(code: str, ports: frozenset[int], names: frozenset[str]) -> str | None:
    """Code that connects to the service: a URL of it, `/dev/tcp`, or a
    host of this machine and a service port named in code that connects."""
    named = any(str(p) in code for p in ports) or "/dev/" in code or "/inet" in code
    if not named and "://" not in code:
        return None
    for host, port in dev_tcp(code):
        if _reaches(host, port, ports, names):
            return "the code opens a connection to the approval service"
    seen: set[tuple[str, int | str | None]] = set()
    for host, number in [] if no_url_reaches(code, ports, names) else urls(code):
        if (host, number) in seen:
            continue
        seen.add((host, number))
        if _reaches(host, number, ports, names):
            return f"the code calls the approval service (`{host}:{number}`)"
    # The port first: a literal, found fast; the connect words scan slowly.
    if not any(_names_port(code, str(p)) for p in ports):
        return None
    if not any(word in code for word in _CONNECT_WORDS) or not _CODE_CONNECTS.search(code):
        return None
    for match in _CODE_HOST.finditer(code):
        literal = match.group(1)
        if literal is None or may_be_here(literal, names, loose=False):
            return "the code connects to the approval service's port on this machine"
    return None


def _names_port(code: str, port: str) -> bool:
    """`port` in `code` as a number of its own (not `18787`, `8787.5`, `x8787`)."""
    at = code.find(port)
    while at >= 0:
        before = code[at - 1] if at else ""
        after = code[at + len(port) : at + len(port) + 1]
        if not (before.isalnum() or before in "_.") and not after.isdigit():
            return True
        at = code.find(port, at + 1)
    return False


def may_name_port(inv: Invocation) -> bool:
    """A port is two digits or more (or `/dev/tcp/...`, or a URL's scheme
    and host): most invocations name none and skip the service check."""
    for word in (*inv.argv[1:], *(r.target for r in inv.redirects if r.target is not None)):
        value = word.value
        if value.isalpha():
            continue
        if ":" in value or "/dev/" in value or _TWO_DIGITS.search(value):
            return True
    return bool(inv.appended_args and inv.stdin_text and ":" in inv.stdin_text)


def contact_words(inv: Invocation, code: str | None) -> list[str]:
    """The words of `inv` that say where it connects: its redirects, and
    its own arguments unless it only prints or lists them; not what a
    wrapper runs, a carried script or inline code (each judged on its own),
    nor an `ssh`'s remote command."""
    words = [r.target.value for r in inv.redirects if r.target is not None]
    if inv.name in SHOWS_ONLY:
        return words
    argv = inv.argv
    split = split_wrapper(inv.name, argv)
    end = len(argv) - len(split[0]) if split and split[0] else len(argv)
    carried = {c.text for c in carried_scripts(inv)} | {code or ""}
    own = [w.value for w in argv[1:end] if w.value not in carried]
    if inv.name in ("ssh", "autossh"):
        rest = len(loopback.remote_command(inv))
        own = own[: len(own) - rest] if rest else own
    if (inv.appended_args or inv.name == "xargs") and inv.stdin_text:
        own += inv.stdin_text.split()  # `echo URL | xargs curl`
    return words + own


# -- the guard's checks of the service ------------------------------------


def socket_hit(guard: Guard, inv: Invocation) -> RuleHit | None:
    """A socket of the approval service inside an address word:
    `UNIX-CONNECT:PATH`, `unix:PATH`, `--unix-socket=PATH`,
    `http+unix://%2F...` (each a path the plain path checks miss)."""
    for word in inv.argv[1:]:
        value = word.value
        if ":" not in value and "=" not in value and "%2" not in value.lower():
            continue
        text = value.replace("%2F", "/").replace("%2f", "/")
        for piece in _ADDRESS_PARTS.split(text):
            if ".sock/" in piece:  # the socket, then the URL's path
                piece = piece[: piece.index(".sock/") + 5]
            path = guard.canon(piece, inv.cwd, piece) if piece[:1] in "/~$" else None
            entry = None if path is None else guard.table.lookup(path, False)
            if entry is not None and entry.kind is NeverRunKind.SELF_APPROVAL:
                return guard.hit(entry.kind, inv.span, f"`{value}` is {entry.what}")
    return None


def code_hits(guard: Guard, code: str, span: Span | None) -> Iterator[RuleHit]:
    """Code that drives the gate's own parts or talks to its service."""
    if own_cli.code_drives_gate(code):
        yield guard.hit(NeverRunKind.SELF_APPROVAL, span, "the code drives the gate's own parts")
        return
    if _TWO_DIGITS.search(code) or "/dev/" in code or "://" in code:
        where = code_reaches(code, guard.ports(), guard.world.loopback_names())
        if where:
            yield guard.hit(NeverRunKind.SELF_APPROVAL, span, where)


def url_hits(guard: Guard, action: Action) -> Iterator[RuleHit]:
    """A URL (fetched, browsed, or given to a tool nothing is known about)
    that is the approval service on this machine."""
    # A command line among them is judged as one (`shell_hits`).
    texts = [
        t
        for t in (*action.urls, *action.texts)
        if ("://" in t or "/dev/" in t) and t != action.command
    ]
    if not texts:
        return
    ports, names = guard.ports(), guard.world.loopback_names()
    for text in texts:
        where = words_reach(text.split(), ports, names)
        if where:
            yield guard.hit(NeverRunKind.SELF_APPROVAL, None, where)
            return


def looked_up_socket(guard: Guard, inv: Invocation, analysis: Analysis) -> RuleHit | None:
    """A program given a word computed by a lookup of a socket in the gate's
    home (`nc -U "$(find ~/.redline -name owner.sock)"`): it may be one of
    the service's."""
    if not any(DYNAMIC in w.value for w in inv.argv[1:]):
        return None
    home = guard.canon(guard.places.redline_home) or "~/.redline"
    for child in analysis.children(inv):
        values = [w.value for w in child.argv[1:]]
        if not any(v.endswith((".sock", ".sock'", "*")) or v in _SOCKET_NAMES for v in values):
            continue
        for word in child.argv[1:]:
            path = guard.canon(word.value, child.cwd, word.raw)
            if path and (path == home or path.startswith(home + "/")):
                where = f"`{child.name} {word.value}` looks up a socket of the approval service"
                return guard.hit(NeverRunKind.SELF_APPROVAL, inv.span, where)
    return None


_SOCKET_NAMES = frozenset({"owner.sock", "hook.sock", "relay-http.sock", "relay-hook.sock"})
