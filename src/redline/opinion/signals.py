"""Risk signals: why an allowed call is worth a second opinion.

- `network-secret`: the call reaches a host and reads a secret-like file or
  names a secret-like variable (or sends one in a URL's query).
- `upload`: local files go to a host (`scp`, `rsync`, `curl -T/-F/-d @`...).
- `unknown-program`: a program that is not on `PATH` (a local script, a
  freshly made binary), shell built-ins aside.
- `computed-command`: a command word the shell works out at run time.
- `write-outside-workspace`: a write outside the call's working directory
  (and the temporary directories).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping

from redline.audit.redact import is_secret_name
from redline.gate.actions import ToolCall
from redline.gate.effects import Facts

_SECRET_PATH = re.compile(
    r"(^|/)(\.env(\.[^/]*)?|\.ssh/|id_(rsa|dsa|ecdsa|ed25519)|\.aws/|\.netrc|\.npmrc|\.pypirc"
    r"|\.docker/config\.json|\.kube/config|\.gnupg/|credentials|secrets?\b|[^/]*\.pem$|[^/]*\.key$"
    r"|\.git-credentials|token)",
    re.IGNORECASE,
)
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_QUERY_SECRET = re.compile(r"[?&][^=&]*(token|key|secret|password|passwd|auth)[^=&]*=", re.I)
_UPLOADERS = frozenset({"scp", "rsync", "sftp", "ftp", "lftp", "nc", "ncat", "netcat", "socat"})
_UPLOAD_FLAGS = frozenset({"-T", "--upload-file", "-F", "--form", "--post-file", "--body-file"})
_DATA_FLAGS = frozenset({"-d", "--data", "--data-binary", "--data-raw", "--data-urlencode"})
_BUILTINS = frozenset(
    (
        ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command",
        "compgen", "complete", "continue", "declare", "dirs", "disown", "echo", "enable", "eval",
        "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs",
        "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read",
        "readarray", "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test",
        "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
        "[[", "]]", "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done",
        "case", "esac", "function", "time", "select",
    )
)  # fmt: skip
_TEMP = ("/tmp/", "/var/tmp/", "/dev/null", "/dev/stdout", "/dev/stderr")  # noqa: S108


def _words(facts: Facts) -> list[tuple[str, tuple[str, ...]]]:
    if facts.analysis is None:
        return []
    return [(i.name, tuple(w.value for w in i.argv)) for i in facts.analysis.invocations]


def _uploads(words: list[tuple[str, tuple[str, ...]]]) -> bool:
    for name, argv in words:
        if name in _UPLOADERS:
            return True
        if name not in ("curl", "wget", "http", "https", "xh"):
            continue
        for index, word in enumerate(argv[1:], 1):
            flag, _, value = word.partition("=")
            following = argv[index + 1] if index + 1 < len(argv) else ""
            if flag in _UPLOAD_FLAGS:
                return True
            if flag in _DATA_FLAGS and (value or following).startswith("@"):
                return True
            if name in ("http", "https", "xh") and "@" in word and "=" in word:
                return True
    return False


def _absolute(path: str, home: str) -> str:
    if path == "~" or path.startswith("~/"):
        return home.rstrip("/") + path[1:]
    return path


def _outside(written: tuple[str, ...], cwd: str | None, home: str) -> bool:
    root = os.path.normpath(cwd) if cwd and cwd.startswith("/") else None
    for path in written:
        full = _absolute(path, home)
        if full.startswith(_TEMP) or full in ("/dev/null",):
            continue
        if root is None or not (full == root or full.startswith(root.rstrip("/") + "/")):
            return True
    return False


def risk_signals(
    facts: Facts | None, call: ToolCall, environ: Mapping[str, str]
) -> tuple[str, ...]:
    """The signals `facts` show, in `OPINION_SIGNALS` order."""
    if facts is None:
        return ()
    found: list[str] = []
    words = _words(facts)
    hosts = facts.hosts
    text = facts.action.command or " ".join(facts.action.urls)
    if hosts:
        secret_file = any(_SECRET_PATH.search(p) for p in facts.read)
        secret_var = any(is_secret_name(name) for name in _VARIABLE.findall(text))
        if secret_file or secret_var or _QUERY_SECRET.search(text):
            found.append("network-secret")
    if _uploads(words):
        found.append("upload")
    search = environ.get("PATH") or os.defpath
    for name, _argv in words:
        if (
            name
            and name not in _BUILTINS
            and ("/" in name or shutil.which(name, path=search) is None)
        ):
            found.append("unknown-program")
            break
    if any(not name for name, _argv in words):
        found.append("computed-command")
    cwd = facts.action.workdir or call.cwd
    if _outside(facts.written, cwd, facts.home):
        found.append("write-outside-workspace")
    return tuple(found)
