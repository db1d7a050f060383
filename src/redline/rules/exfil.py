"""Following secrets to where they leave the machine (F-RULES-1).

One pass over the invocations, in order: each sender is checked for the
secrets in the files it sends, on its stdin (pipelines, redirects, the
carrier's stdin), and in the `$( )` of its arguments; files written with a
secret in them (`cp key /tmp/k`, `base64 key > /tmp/b`) count as secrets for
the senders after them. Every answer is computed once per invocation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from redline.decision import Span
from redline.rules import argv
from redline.rules.code import code_source, code_text
from redline.rules.secret_sources import TOKEN_PROGRAMS, prints_token
from redline.rules.secrets import canonical, is_secret
from redline.rules.senders import SENDERS, args_from_stdin, socket_redirect
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.wrappers import split_wrapper

# Programs whose output is not the content of the files they are given.
_NOT_CONTENT = frozenset({
    "ls", "stat", "file", "wc", "du", "test", "[", "[[", "realpath", "readlink", "basename",
    "dirname", "echo", "printf", "ssh", "scp", "sftp", "ssh-add", "ssh-keygen", "ssh-copy-id",
    "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum",
    "shasum", "md5", "chmod", "chown", "chgrp", "touch", "mkdir", "rm", "mv", "cp", "ln",
    "install", "find", "tree", "git", "kubectl", "helm", "docker", "podman", "terraform",
    "ansible", "ansible-playbook", "curl", "wget", "rsync", "shred", "srm", "diff", "cmp",
})  # fmt: skip
_OPENSSL_NO_SECRET = frozenset({"s_client", "s_server", "x509", "req", "verify", "dgst",
                                "pkeyutl", "rsautl", "smime", "cms", "ca", "ocsp", "version",
                                "speed", "sess_id", "rand", "ciphers"})  # fmt: skip
_SECRET_VARIABLE = lazy_regex(
    r"\$\{?\w*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL)",
    re.IGNORECASE,
)
_WHOLE_ENV = lazy_regex(
    r"environ\s*[),]|environ\.(?:items|keys|values|copy)\(|process\.env\s*[),;]|%ENV\b"
    r"|\bENV\.(?:to_h|each|inspect|to_a)|\bENV\s*[),;]|getenv\(\s*\)"
)
_CODE_STRING = lazy_regex(r"[\"']([~/$.][^\"'\s]*)[\"']")
# Network calls in inline code (Python, Node, Ruby, Perl, PHP).
_CODE_SENDS = lazy_regex(
    r"urlopen|urllib|requests\.\w+\(|http\.client|httpx|socket\.|\bfetch\(|axios|https?\.request"
    r"|Net::HTTP|LWP::|IO::Socket|HTTP::Tiny|smtplib|ftplib|paramiko|curl_exec|fsockopen"
)
_TRANSFER_WORDS = lazy_regex(r"[\s;'\"|&]+")
_COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync", "ditto"})
_MAX_DEPTH = 16


def exfiltrations(analysis: Analysis) -> Iterator[Span]:
    """The spans of every invocation that sends a secret off the machine."""
    if not any(map(_may_send, analysis.invocations)):
        return  # nothing here sends (most commands): no trace to build
    trace = _Trace(analysis)
    for inv in analysis.invocations:
        if inv.remote:
            continue
        if trace.sends_secret(inv):
            yield inv.span
        trace.taint(inv)


def _may_send(inv: Invocation) -> bool:
    """What `_Trace.sends_secret` needs before it can be true: a redirect
    (to a socket), code of its own, or a known sender."""
    return not inv.remote and (
        bool(inv.redirects) or inv.name in SENDERS or code_source(inv) is not None
    )


def env_dump(inv: Invocation) -> bool:
    """`env`, `printenv`, `set`, `export -p`, or code that prints the whole environment."""
    name, values = inv.name, inv.values
    if name == "env":
        split = split_wrapper("env", inv.argv)
        return split is not None and not split[0] and not split[1]
    if name == "printenv":
        return not values or any(_SECRET_VARIABLE.search("$" + v) for v in values)
    if name == "set":
        return not values
    if name in ("export", "declare", "typeset"):
        return all(v in ("-p", "-x", "-px", "-xp") for v in values)
    code = code_text(inv)
    return bool(code and _WHOLE_ENV.search(code))


class _Trace:
    def __init__(self, analysis: Analysis) -> None:
        self.invocations = analysis.invocations
        self.tainted: set[str] = set()
        self._emits: dict[int, bool] = {}
        self._stdin: dict[int, bool] = {}
        # What runs inside each invocation: `$( )` children and carried scripts.
        self.inner: dict[int, list[Invocation]] = {}
        self.carrier: dict[int, Invocation] = {}
        latest: dict[int, int] = {}
        for inv in self.invocations:
            if inv.parent >= 0:
                self.inner.setdefault(inv.parent, []).append(inv)
            shallower = [k for d, k in latest.items() if d < inv.depth]
            if inv.depth and shallower:
                outer = self.invocations[max(shallower)]
                self.carrier[inv.index] = outer
                self.inner.setdefault(outer.index, []).append(inv)
            latest[inv.depth] = inv.index

    def names_secret(self, value: str, inv: Invocation, raw: str = "") -> bool:
        for candidate in (value, value.partition("@")[2], value.partition("=")[2]):
            if candidate:
                path = canonical(candidate, inv.cwd, raw)
                if path is not None and (is_secret(path) or path in self.tainted):
                    return True
        return False

    def reads_secret(self, inv: Invocation, holder: Invocation) -> bool:
        """`holder` has a `<` redirect from a secret."""
        return any(
            r.op == "<" and r.target and self.names_secret(r.target.value, inv, r.target.raw)
            for r in holder.redirects
        )

    def emits(self, inv: Invocation, depth: int = 0) -> bool:
        """The invocation's output may hold a secret it reads (or the environment)."""
        known = self._emits.get(inv.index)
        if known is None:
            known = self._emits[inv.index] = self._compute_emits(inv, depth)
        return known

    def _compute_emits(self, inv: Invocation, depth: int) -> bool:
        name, values = inv.name, inv.values
        if env_dump(inv) or (
            name == "gpg" and any(v.startswith("--export-secret") for v in values)
        ):
            return True
        if name in TOKEN_PROGRAMS and prints_token(inv):
            return True
        if name == "openssl" and (inv.subcommand() in _OPENSSL_NO_SECRET or "-pubout" in values):
            return False
        if name in ("echo", "printf") and any(_SECRET_VARIABLE.search(w.raw) for w in inv.argv[1:]):
            return True
        if name in _ARCHIVERS and archives_secrets(inv):
            return True
        if name not in _NOT_CONTENT and not inv.remote:
            if any(self.names_secret(w.value, inv, w.raw) for w in inv.argv[1:]):
                return True
            if self.reads_secret(inv, inv):
                return True
            code = code_text(inv)
            if code and any(self.names_secret(s, inv) for s in _CODE_STRING.findall(code)):
                return True
        inner = self.inner.get(inv.index, ())
        return depth < _MAX_DEPTH and any(self.emits(x, depth + 1) for x in inner)

    def upstream(self, inv: Invocation) -> list[Invocation]:
        """What feeds the invocation's stdin: its pipeline, or its carrier's."""
        if inv.upstream:
            return [self.invocations[k] for k in inv.upstream if k < len(self.invocations)]
        carrier = self.carrier.get(inv.index)
        return self.upstream(carrier) if carrier is not None else []

    def stdin(self, inv: Invocation) -> bool:
        known = self._stdin.get(inv.index)
        if known is None:
            carrier = self.carrier.get(inv.index)
            known = self.reads_secret(inv, inv) or bool(carrier and self.reads_secret(inv, carrier))
            known = known or any(self.emits(up) for up in self.upstream(inv))
            self._stdin[inv.index] = known
        return known

    def sends_secret(self, inv: Invocation) -> bool:
        if socket_redirect(inv, writes=True):
            return self.emits(inv) or self.stdin(inv)
        code = code_text(inv)
        if (
            code
            and _CODE_SENDS.search(code)
            and any(self.names_secret(s, inv) for s in _CODE_STRING.findall(code))
        ):
            return True  # inline code that reads a secret and talks to the network
        reader = SENDERS.get(inv.name)
        sent = reader(inv) if reader is not None else None
        if sent is None:
            return False
        raw = {w.value: w.raw for w in inv.argv}
        if any(self.names_secret(f, inv, raw.get(f, "")) for f in sent.files):
            return True
        if (
            inv.name in _RECURSIVE_SENDERS
            and inv.has_flag("ra", ("recursive", "archive"))
            and any(_holds_secrets(canonical(f, inv.cwd)) for f in sent.files)
        ):
            return True  # `scp -r ~ host:`: the home's keys go with it
        words = _TRANSFER_WORDS.split(sent.text) if sent.text else []
        if any(self.names_secret(w, inv) for w in words if w):
            return True
        if (sent.stdin or args_from_stdin(inv)) and self.stdin(inv):
            return True
        return any(
            self.emits(x) and not _auth_header(inv, x)
            for x in self.inner.get(inv.index, ())
            if x.parent == inv.index
        )

    def taint(self, inv: Invocation) -> None:
        """Remember the files this invocation writes a secret into."""
        copies = inv.name in _COPIERS
        reads_operands = copies or inv.name in ("tee", "zip", "7z", "7za")
        operands = [w.value for w in inv.options.operands] if reads_operands else []
        written: list[str] = []
        if copies and len(operands) >= 2:
            sources = [o for o in operands[:-1] if self.names_secret(o, inv)]
            if sources:
                target = operands[-1]
                written += [target, *(target + "/" + o.rsplit("/", 1)[-1] for o in sources)]
        elif _writes_anything(inv) and (self.emits(inv) or self.stdin(inv)):
            written += [r.target.value for r in inv.redirects if r.writes and r.target]
            if inv.name == "tee":
                written += operands
            elif inv.name == "dd":
                written += [v[3:] for v in inv.values if v.startswith("of=")]
            elif inv.name == "tar":
                written += tar_file(inv.values)
            elif inv.name in ("zip", "7z", "7za") and operands:
                written += operands[:1] if inv.name == "zip" else operands[1:2]
        for value in written:
            path = canonical(value, inv.cwd)
            if path is not None:
                self.tainted.add(path)


# Programs that pack whole trees into their output; senders that copy whole trees.
_ARCHIVERS = frozenset({"tar", "gtar", "bsdtar", "zip", "7z", "7za", "cpio", "pax", "afio"})
_RECURSIVE_SENDERS = frozenset({"scp", "rsync", "sftp"})
_TREES_OF_HOMES = frozenset({"/home", "/Users", "/root", "/var/root"})


def _holds_secrets(path: str | None) -> bool:
    """A tree that holds the owner's keys: `/`, a home directory, or all homes."""
    return path is not None and (
        paths.is_root(path) or paths.is_home_dir(path) or path in _TREES_OF_HOMES
    )


def archives_secrets(inv: Invocation) -> bool:
    """An archiver packing a secret, or a tree that holds them (`tar czf - ~`,
    `cd ~ && tar czf - .`, `tar -C ~ -czf - .ssh`, `zip -r - ~`)."""
    if inv.name == "zip" and not inv.has_flag("r", ("recurse-paths",)):
        return any(is_secret(canonical(w.value, inv.cwd) or "") for w in inv.options.operands)
    base = argv.parse(inv.values, "fCbTHb", ("file", "directory")).value("-C", "--directory")
    for word in inv.options.operands:
        value = word.value
        if base and not value.startswith(("/", "~", "$")):
            value = base[-1].rstrip("/") + "/" + value
        path = canonical(value, inv.cwd)
        if path is not None and (_holds_secrets(path) or is_secret(path)):
            return True
    return False


def _auth_header(sender: Invocation, inner: Invocation) -> bool:
    """A token command used as the sender's credential, not as its data: in
    an auth header (`-H "Authorization: Bearer $(gcloud auth
    print-access-token)"`) or an environment variable (`GH_TOKEN=$(gh auth
    token) gh api user`): the token goes to the service it is for."""
    if inner.name not in TOKEN_PROGRAMS or not prints_token(inner):
        return False
    argv = sender.argv
    for k, word in enumerate(argv):
        if word.span.start <= inner.span.start < word.span.end:
            previous = argv[k - 1].value if k else ""
            return previous in ("-H", "--header") or word.value.startswith("--header=")
    return True  # in no argument: an assignment before the command


def _writes_anything(inv: Invocation) -> bool:
    return inv.name in ("tee", "dd", "tar", "zip", "7z", "7za") or any(
        r.writes for r in inv.redirects
    )


def tar_file(values: tuple[str, ...]) -> tuple[str, ...]:
    """The archive `tar` writes: `tar czf A`, `tar -czf A`, `tar --file=A`."""
    if values and not values[0].startswith("-") and "f" in values[0]:
        return values[1:2]
    return argv.parse(values, "fCbT", ("file",)).value("-f", "--file")
