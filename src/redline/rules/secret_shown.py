"""Secrets shown where they should not be (issue 18, family 1): a token
command or a secret variable printed into the transcript (which the model's
provider receives) or the clipboard, and the whole environment written into
a file or filtered for secret names. A secret handed straight to the program that needs it
(`gh auth token | docker login --password-stdin`, `export
GH_TOKEN=$(gh auth token)`) is not shown."""

from __future__ import annotations

import re

from redline.decision import Severity
from redline.rules.model import Rule, rule
from redline.rules.secret_readers import read_files
from redline.rules.secret_sources import (
    DUMPERS,
    PRINTERS,
    TOKEN_PROGRAMS,
    dumps_environment,
    prints_secret,
)
from redline.rules.secrets import canonical, is_secret
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

S = Severity.SENSITIVE

# Programs that pass what they read on to their own output (or a file).
_PASS_ON = frozenset({"tee", "cat", "less", "more", "head", "tail", "base64", "jq", "yq", "sed",
                      "awk", "cut", "tr", "sort", "uniq", "column", "xxd", "od", "hexdump",
                      "fold", "rev", "grep", "egrep", "nl", "bat", "strings", "gpg"})  # fmt: skip
# Programs `secret_readers` reads files for (kept here: the catalogue's index
# is built from rule data without importing the readers).
_READERS = (
    "cat", "less", "more", "head", "tail", "bat", "batcat", "grep", "egrep", "fgrep", "rg",
    "nl", "strings", "xxd", "od", "hexdump", "tac", "sort", "uniq", "base64", "base32",
    "basenc", "column", "fold", "rev", "paste", "cut", "sed", "awk", "gawk", "mawk", "nawk",
    "jq", "yq", "diff", "sdiff", "dd", "tee", "tr", "expand", "unexpand", "fmt", "pr", "comm",
    "join", "look", "iconv", "dos2unix", "gpg", "python", "python3", "python2", "pypy3",
    "node", "nodejs", "bun", "deno", "ruby", "perl", "php", "lua", "luajit", "Rscript",
)  # fmt: skip
_GIT_SHOWS = frozenset({"show", "cat-file"})
_CLIPBOARDS = frozenset({"pbcopy", "xclip", "xsel", "wl-copy", "clip.exe", "clip"})
# Filters that pick lines out of an environment dump (`env | grep -i token`).
_PICKERS = frozenset({"grep", "egrep", "fgrep", "rg", "awk", "sed"})
_SECRET_WORDS = lazy_regex(r"token|secret|passw|api_?key|credential|auth|private|aws|key", re.I)
# Devices and sockets (`/dev/null`, `/dev/tcp/h/p`: the latter is `net.secret-exfil`'s).
_NOT_FILES = "/dev/"
_MAX_DEPTH = 8


def writes_file(inv: Invocation) -> tuple[str, ...]:
    """The files its standard output is written into."""
    return tuple(
        r.target.value
        for r in inv.redirects
        if r.writes and r.target is not None and r.fd in (None, 1)
        and not r.target.value.isdigit() and not r.target.value.startswith(_NOT_FILES)
    )  # fmt: skip


def consumers(inv: Invocation, analysis: Analysis) -> list[Invocation]:
    """What reads its output through a pipe."""
    return [x for x in analysis.invocations if inv.index in x.upstream and x.index != inv.index]


def captured_by(inv: Invocation, analysis: Analysis) -> Invocation | bool | None:
    """The command whose argument holds it in `$( )`; `True` when an
    assignment does (`X=$(cmd)`); `None` when nothing captures it."""
    if inv.parent >= 0:
        holder = analysis.invocations[inv.parent]
        return holder if holder.depth == inv.depth else None
    prefix = analysis.text[: inv.span.start]
    opened = prefix.rfind("$(")
    if (opened >= 0 and ")" not in prefix[opened:]) or prefix.count("`") % 2:
        return True
    return None


def shown(inv: Invocation, analysis: Analysis, whole: bool = False, depth: int = 0) -> bool:
    """Its output reaches the transcript (or the clipboard). With `whole` (an
    environment dump), only a file, the clipboard or a filter picking secret
    names counts. One secret written into a file is its consumer's
    configuration: that counts when the file is committed (`secret.into-git`)."""
    if any(r.writes and r.fd in (None, 1) for r in inv.redirects):
        return whole and bool(writes_file(inv))  # `> /dev/null`, `> .npmrc`
    if depth > _MAX_DEPTH:
        return False
    readers = consumers(inv, analysis)
    if readers:
        return any(
            r.name in _CLIPBOARDS
            or (whole and _picks_secrets(r) and shown(r, analysis, False, depth + 1))
            or (r.name == "tee" and bool(r.options.operands))
            or (r.name in _PASS_ON and shown(r, analysis, whole, depth + 1))
            for r in readers
        )
    holder = captured_by(inv, analysis)
    if isinstance(holder, Invocation):
        return holder.name in PRINTERS and shown(holder, analysis, whole, depth + 1)
    return holder is None and not whole


def _picks_secrets(reader: Invocation) -> bool:
    """A filter whose pattern picks secret-named variables out of a dump."""
    return reader.name in _PICKERS and any(
        _SECRET_WORDS.search(v) for v in reader.values if not v.startswith("-")
    )


def _secret_shown(inv: Invocation, analysis: Analysis) -> bool:
    if prints_secret(inv):
        return shown(inv, analysis)
    return dumps_environment(inv) and shown(inv, analysis, whole=True)


def _file_shown(inv: Invocation, analysis: Analysis) -> bool:
    """A secret file (`.env`, `.env.production`, a key, credentials) printed
    where its output reaches the transcript: by any reader of it
    (`secret_readers`)."""
    if inv.remote:
        return False  # `ssh host cat key`: that host's file, `net.*`'s to judge
    argv = inv.argv
    if len(argv) < 2 and not inv.redirects:
        return False  # `cat` alone reads the terminal
    if inv.name == "git" and _GIT_SHOWS.isdisjoint(inv.values):
        return False  # only `git show REV:PATH` prints a file here
    for word in read_files(inv):
        path = canonical(word.value, inv.cwd, word.raw)
        if path is not None and not path.startswith("/proc/") and is_secret(path):
            return shown(inv, analysis)
    return False


SECRET_SHOWN_RULES: tuple[Rule, ...] = (
    rule(
        "secret.file-shown",
        "secret",
        S,
        "show a secret file: a `.env`, key or credentials file printed into the transcript",
        "read only the variable names (`cut -d= -f1 .env`), or let the program that needs "
        "the secrets read the file itself",
        programs=(*_READERS, "git"),
        test=_file_shown,
        must_match=(
            "cat .env",
            "cat < .env",
            "< .env base64",
            "sed -n p .env",
            "awk 1 .env",
            "sort .env",
            "dd if=.env",
            "git show HEAD:.env",
            "python3 -c 'print(open(\".env\").read())'",
            "perl -ne print .env",
            "less .env.production",
            "grep -r KEY .env",
            "head -n 5 config/.env.local",
            "cat ~/.aws/credentials",
        ),
        must_not_match=(
            "cat .env.example",
            "cat .env.sample",
            "grep -q DATABASE_URL .env",
            "cat .env > /dev/null",
            "cat ~/.ssh/id_rsa.pub",
            "cat README.md",
            "cut -d= -f1 .env",
            "awk -F= '{print $1}' .env",
            "sed 's/=.*//' .env",
            "sed -i 's/a/b/' .env",
            "git show HEAD:README.md",
        ),
    ),
    rule(
        "secret.shown",
        "secret",
        S,
        "show a secret: a token command or a secret variable printed into the transcript, or "
        "the whole environment written into a file or filtered for secrets",
        "hand the secret straight to the program that needs it (`--password-stdin`, an "
        "environment variable) instead of printing it",
        programs=(*TOKEN_PROGRAMS, *PRINTERS, *DUMPERS),
        test=_secret_shown,
        must_match=(
            "gh auth token",
            "gcloud auth print-access-token",
            "vault kv get secret/app",
            "kubectl get secret db -o yaml",
            "printenv GITHUB_TOKEN",
            "echo $AWS_SECRET_ACCESS_KEY",
            'echo "$(gh auth token)"',
            "kubectl get secret db -o jsonpath='{.data.pw}' | base64 -d",
            "env > /tmp/env.txt",
            "gh auth token | tee token.txt",
        ),
        must_not_match=(
            "gh auth status",
            "printenv PATH",
            "echo $HOME",
            "env",
            "env | grep -i proxy",
            "export GH_TOKEN=$(gh auth token)",
            "gh auth token | docker login ghcr.io -u me --password-stdin",
            "kubectl get secrets",
            "aws configure get region",
            "gh auth token > /dev/null",
            'echo "$NPM_TOKEN" > .npmrc',
        ),
    ),
)
