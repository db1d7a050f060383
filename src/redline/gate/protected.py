"""The places the agent never touches: the gate's own files, the approval log,
scheduled jobs' scripts and the owner's credentials (F-GATE-3).

Paths are compared in one canonical spelling: `~/...` for anything in a home
directory (the owner's real home, `/root`, `/home/NAME`, `/Users/NAME`), `/...`
otherwise, lower-cased (some filesystems are case-insensitive, and a false
alarm here costs less than a miss).
"""

import enum
import fnmatch
from collections.abc import Iterator, Mapping

from redline.fasttuple import NamedTuple
from redline.gate.agent_places import BROWSER_PROFILES, BROWSER_SECRETS, HOOK_PLACES
from redline.shell import paths
from redline.shell.lazy_regex import lazy_regex


class NeverRunKind(enum.StrEnum):
    GATE_CONFIG = "gate-config"
    SCHEDULED_SCRIPT = "scheduled-script"
    APPROVAL_LOG = "approval-log"
    CREDENTIALS = "credentials"
    APPROVAL_LISTENER = "approval-listener"
    GATE_PROCESS = "gate-process"
    SELF_APPROVAL = "self-approval"


DESCRIPTIONS: dict[NeverRunKind, tuple[str, str]] = {
    NeverRunKind.GATE_CONFIG: (
        "never runs: changing the gate itself (its config, hooks, policy or allowlists)",
        "leave the gate's config, hooks and allowlists to the owner; ask them to make the change",
    ),
    NeverRunKind.SCHEDULED_SCRIPT: (
        "never runs: changing a scheduled job's script outside the gate",
        "create or change the job through `cronjob_manage`, or ask the owner",
    ),
    NeverRunKind.APPROVAL_LOG: (
        "never runs: touching the approval log",
        "leave the approval log alone; ask the owner for what you need from it",
    ),
    NeverRunKind.CREDENTIALS: (
        "never runs: reading or changing the owner's credentials",
        "do not read or copy credentials; ask the owner to run what needs them",
    ),
    NeverRunKind.APPROVAL_LISTENER: (
        "never runs: binding or listening on the approval service's port or socket",
        "use another port or socket path",
    ),
    NeverRunKind.GATE_PROCESS: (
        "never runs: killing, stopping, tracing or replacing the gate or the agent's gateway",
        "leave the gate and the gateway running; ask the owner to restart them",
    ),
    NeverRunKind.SELF_APPROVAL: (
        "never runs: answering held calls or talking to the approval service from the agent's side",
        "only the owner answers held calls (terminal, web page, Telegram): wait for the answer, "
        "or ask the owner; `redline check` says what the gate would do",
    ),
}


class Places(NamedTuple):
    """Where the protected things live on this machine.

    `home` is the owner's real home directory; `hermes_home` and
    `redline_home` may be given as `~/...` or absolute. `extra_config` names
    more files of the gate (the policy file, its allowlist and lock).
    """

    home: str = "/root"
    hermes_home: str = "~/.hermes"
    redline_home: str = "~/.redline"
    extra_config: tuple[str, ...] = ()
    # Directories of the gate itself (the installed package).
    extra_trees: tuple[str, ...] = ()
    # Files that decide what runs as the gate: its command, the Python that
    # runs it and what that Python loads first (`*.pth`, `sitecustomize.py`).
    code_files: tuple[str, ...] = ()
    approval_port: int | None = None
    approval_socket: str | None = None
    gateway_names: tuple[str, ...] = ("redline", "hermes")
    # Where Codex and Claude Code keep their config (`$CODEX_HOME`, `$CLAUDE_CONFIG_DIR`).
    codex_home: str = "~/.codex"
    claude_home: str = "~/.claude"


class Protected(NamedTuple):
    """One protected path. `tree`: everything under it too. `suffix`: the
    path may sit under any directory (`.claude/settings.json` of a project).
    `reads`: reading it counts as well as changing it. `read_ok`/`write_ok`:
    file-name patterns inside a tree that may be read / written."""

    kind: NeverRunKind
    path: str
    what: str
    tree: bool = False
    suffix: bool = False
    reads: bool = False
    read_ok: tuple[str, ...] = ()
    write_ok: tuple[str, ...] = ()
    # Concrete files a glob could name (`~/.ssh/*` names `~/.ssh/id_rsa`).
    samples: tuple[str, ...] = ()
    # File-name patterns inside a tree this entry is about (all when empty).
    only: tuple[str, ...] = ()

    def allows(self, name: str, write: bool) -> bool:
        if self.only and not any(fnmatch.fnmatchcase(name, p) for p in self.only):
            return True
        patterns = self.write_ok if write else self.read_ok
        return any(fnmatch.fnmatchcase(name, p) for p in patterns)


_HOME_PREFIX = lazy_regex(r"\A(?:/root|/var/root|/home/[^/]+|/Users/[^/]+)(?=/|\Z)")
# Another way to the same files: a process's view of the root directory
# (`/proc/self/root/etc` is `/etc`), and macOS's `/private/var/root`.
_ROOT_ALIAS = lazy_regex(r"\A(?:/proc/(?:self|thread-self|\d+)(?:/task/\d+)?/root|/private)(?=/)")
# The approval log lives in the gate's home: everything there but these is the log.
_NOT_LOG = ("*.yaml", "*.yml", "*.json", "*.lock", "*.toml", "*.sock", "*.pub", "cache")
_SSH_KEYS = ("id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "id_ed25519_sk", "id_ecdsa_sk")


def canonical(path: str, home: str) -> str:
    """`~/...` for paths in any home directory, lower-cased."""
    # Prefix tests first: most paths need neither pattern (ADR 0003).
    if path.startswith(("/proc/", "/private/")):
        path = _ROOT_ALIAS.sub("", path, count=1) or "/"
    home = home.rstrip("/")
    if home and home != "/" and (path == home or path.startswith(home + "/")):
        path = "~" + path[len(home) :]
    elif path.startswith(paths.HOME_PREFIXES):
        path = _HOME_PREFIX.sub("~", path, count=1)
    return path.lower()


def _place(value: str, home: str) -> str:
    normal = paths.normalize(value) or value
    return canonical(normal, home)


# What the gate keeps secret in its home, wherever in it: signing keys, the
# hooks' token, pairing codes.
_GATE_SECRETS = ("*.key", "*token*", "*secret*", "*pairing*", "*.pem", "*password*", "*credential*")


def build_table(places: Places) -> tuple[Protected, ...]:
    """Every protected path, most specific first."""
    home = places.home
    hermes = _place(places.hermes_home, home)
    redline = _place(places.redline_home, home)
    codex = _place(places.codex_home, home)
    claude = _place(places.claude_home, home)
    service = f"{redline}/service"
    C, L, S, K, A = (
        NeverRunKind.CREDENTIALS,
        NeverRunKind.APPROVAL_LOG,
        NeverRunKind.SCHEDULED_SCRIPT,
        NeverRunKind.GATE_CONFIG,
        NeverRunKind.SELF_APPROVAL,
    )
    creds = "the owner's credentials"
    table: list[Protected] = [
        Protected(
            C,
            "~/.ssh",
            "the owner's SSH keys",
            tree=True,
            reads=True,
            read_ok=("*.pub", "known_hosts*", "config", "authorized_keys*"),
            write_ok=("known_hosts*",),
            samples=tuple(f"~/.ssh/{k}" for k in _SSH_KEYS),
        ),
        Protected(
            C,
            "~/.aws",
            "the owner's cloud credentials",
            tree=True,
            reads=True,
            samples=("~/.aws/credentials", "~/.aws/config"),
        ),
        Protected(
            C,
            "~/.gnupg",
            "the owner's GnuPG keys",
            tree=True,
            reads=True,
            samples=("~/.gnupg/private-keys-v1.d", "~/.gnupg/secring.gpg"),
        ),
        Protected(
            C,
            "~/.config/gcloud",
            "the owner's cloud credentials",
            tree=True,
            reads=True,
            samples=("~/.config/gcloud/credentials.db",),
        ),
        Protected(
            C,
            "~/.azure",
            "the owner's cloud credentials",
            tree=True,
            reads=True,
            samples=("~/.azure/accesstokens.json",),
        ),
        Protected(
            C,
            f"{redline}/keys",
            "the gate's signing keys",
            tree=True,
            reads=True,
            samples=(f"{redline}/keys/signing.key",),
        ),
        *(
            Protected(C, p, creds, reads=True)
            for p in (
                "~/.netrc",
                "~/.docker/config.json",
                "~/.kube/config",
                "~/.git-credentials",
                "~/.pgpass",
                "~/.config/gh/hosts.yml",
                f"{codex}/auth.json",
                f"{claude}/.credentials.json",
                "~/.gemini/oauth_creds.json",
                f"{hermes}/.env",
                f"{hermes}/auth.json",
            )
        ),
        # The approval service: changing its files changes the gate; its
        # sockets answer whoever connects (naming one is talking to it); its
        # keys and tokens are secrets.
        Protected(K, service, "the approval service's files", tree=True),
        Protected(
            A,
            f"{service}/owner/owner.sock",
            "the owner's socket of the approval service",
            reads=True,
        ),
        Protected(
            A,
            f"{service}/owner/relay-*.sock",
            "a socket of the approval service",
            reads=True,
            samples=(f"{service}/owner/relay-http.sock",),
        ),
        Protected(
            A, f"{service}/hook.sock", "the hooks' socket of the approval service", reads=True
        ),
        Protected(
            A,
            f"{service}/owner",
            "the owner's side of the approval service",
            tree=True,
            reads=True,
            only=("*.sock",),
        ),
        Protected(
            C,
            service,
            "a secret of the approval service (its key or the hooks' token)",
            tree=True,
            reads=True,
            read_ok=("signing.pub", "serve.json", "run-settings.json"),
            samples=(f"{service}/owner/signing.key",),
        ),
        Protected(
            C,
            redline,
            "a secret of the gate (a key, a token or a pairing code)",
            tree=True,
            reads=True,
            only=_GATE_SECRETS,
            samples=(f"{redline}/hook-token",),
        ),
        *_browser_sessions(),
        Protected(
            L,
            redline,
            "the approval log",
            tree=True,
            reads=True,
            read_ok=_NOT_LOG,
            write_ok=_NOT_LOG,
            samples=(f"{redline}/log.sqlite3",),
        ),
        Protected(K, f"{hermes}/config.yaml", "the Hermes config"),
        Protected(K, f"{hermes}/agent-hooks", "the Hermes hooks", tree=True),
        Protected(K, f"{hermes}/approval", "the Hermes approval settings", tree=True),
        Protected(K, f"{hermes}/plugins", "the Hermes plugins", tree=True),
        Protected(K, f"{hermes}/shell-hooks-allowlist.json", "the consent allowlist"),
        Protected(K, f"{hermes}/shell-hooks-allowlist.json.lock", "the consent allowlist's lock"),
        Protected(K, redline, "the gate's own files", tree=True),
        *_agent_hooks(claude, codex),
        *(
            Protected(K, _place(p, home), "the gate's policy and allowlist")
            for p in places.extra_config
        ),
        *(
            Protected(K, _place(p, home), "the gate's own code", tree=True)
            for p in places.extra_trees
        ),
        *(
            Protected(K, _place(p, home), "what starts the gate (its command or its Python)")
            for p in places.code_files
        ),
        Protected(S, f"{hermes}/scripts", "a script that scheduled jobs run", tree=True),
        Protected(S, "/var/spool/cron", "a scheduled job", tree=True),
        Protected(S, "/etc/crontab", "a scheduled job"),
        Protected(S, "/etc/anacrontab", "a scheduled job"),
        *(
            Protected(S, f"/etc/{d}", "a scheduled job", tree=True)
            for d in ("cron.d", "cron.hourly", "cron.daily", "cron.weekly", "cron.monthly")
        ),
    ]
    if places.approval_socket:
        socket = _place(places.approval_socket, home)
        table.append(Protected(NeverRunKind.APPROVAL_LISTENER, socket, "the approval socket"))
        table.append(Protected(A, socket, "the approval service's socket", reads=True))
    return tuple(table)


def _browser_sessions() -> tuple[Protected, ...]:
    """The owner's browser sessions (the approval page's login among them)."""
    return tuple(
        Protected(NeverRunKind.CREDENTIALS, profile, "the owner's browser sessions", tree=True,
                  reads=True, only=BROWSER_SECRETS, samples=(f"{profile}/default/cookies",))
        for profile in BROWSER_PROFILES
    )  # fmt: skip


def _agent_hooks(claude: str, codex: str) -> tuple[Protected, ...]:
    """What the agents load their hooks from (`agent_places.HOOK_PLACES`)."""

    def spell(text: str) -> str:
        return text.replace("{claude}", claude).replace("{codex}", codex)

    return tuple(
        Protected(NeverRunKind.GATE_CONFIG, spell(p.path), p.what, tree=p.tree, suffix=p.suffix,
                  samples=tuple(spell(x) for x in p.samples))
        for p in HOOK_PLACES
    )  # fmt: skip


def _glob_could_name(pattern: str, concrete: str) -> bool:
    """Could the shell glob `pattern` expand to `concrete`? `*` stops at `/`
    and does not match a leading dot, as in bash."""
    left, right = pattern.split("/"), concrete.split("/")
    if len(left) != len(right):
        return False
    for p, c in zip(left, right, strict=True):
        if p == c:
            continue
        if not paths.is_glob(p) or (c.startswith(".") and not p.startswith(".")):
            return False
        if not fnmatch.fnmatchcase(c, p):
            return False
    return True


def _glob_tail_could_name(pattern: str, entry: Protected) -> bool:
    """A glob whose last segments could name an entry that sits under any
    folder (`/p/.claude/*.json`, `/p/.c*/settings.json` for
    `.claude/settings.json`): its tail against the entry's samples."""
    for sample in (entry.path, *entry.samples):
        tail = sample.strip("/").split("/")
        head = pattern.split("/")
        if len(head) > len(tail) and _glob_could_name("/".join(head[-len(tail) :]), "/".join(tail)):
            return True
    return False


def _head(path: str) -> str:
    """`~/.ssh` for `~/.ssh/id_rsa`, `/etc` for `/etc/cron.d/x`."""
    if path.startswith("~"):
        return "/".join(path.split("/", 2)[:2])
    return "/" + path[1:].split("/", 1)[0]


class Table(NamedTuple):
    """The protected entries, indexed by their first directory so a lookup
    looks at a handful of entries, in table order (most specific first)."""

    entries: tuple[Protected, ...]
    by_head: Mapping[str, tuple[Protected, ...]]
    anywhere: tuple[Protected, ...]
    # The directory names (`.claude`) of the entries that may sit under any directory.
    anywhere_dirs: frozenset[str]

    @classmethod
    def build(cls, entries: tuple[Protected, ...]) -> "Table":
        anywhere = tuple(e for e in entries if e.suffix)
        # Per head, its own entries and the ones that may sit anywhere, in table order.
        grouped: dict[str, list[Protected]] = {}
        for e in entries:
            if not e.suffix:
                grouped.setdefault(_head(e.path), [])
        for e in entries:
            for head in grouped if e.suffix else (_head(e.path),):
                grouped[head].append(e)
        by_head = {head: tuple(items) for head, items in grouped.items()}
        dirs = frozenset(e.path.rsplit("/", 2)[-2] for e in anywhere)
        return cls(entries, by_head, anywhere, dirs)

    def lookup(self, path: str, write: bool) -> Protected | None:
        """The protected entry a canonical path falls in, for reading or writing."""
        return next(self.matches(path, write), None)

    def matches(self, path: str, write: bool) -> Iterator[Protected]:
        """Every protected entry a canonical path (or glob) falls in, in table order."""
        glob = paths.is_glob(path)
        if glob:
            candidates = self.entries
        else:
            candidates = self.by_head.get(_head(path), ())
            if not candidates:
                parts = path.rsplit("/", 2)
                if len(parts) < 3 or parts[-2] not in self.anywhere_dirs:
                    return
                candidates = self.anywhere
        for entry in candidates:
            if (write or entry.reads) and (
                _hit(entry, path, write)
                or (glob and any(_glob_could_name(path, s) for s in (entry.path, *entry.samples)))
                or (glob and entry.suffix and _glob_tail_could_name(path, entry))
            ):
                yield entry


def _hit(entry: Protected, path: str, write: bool) -> bool:
    root = entry.path
    if entry.suffix:
        if paths.is_glob(root):
            return _segments_match(root, path, tail=True)
        return path.endswith(root) and (len(path) == len(root) or path[-len(root) - 1] == "/")
    if paths.is_glob(root):
        if not entry.tree:
            return _segments_match(root, path)
        named = _glob_prefix(root, path)
        if named is None:
            return False
        root = named
    if not path.startswith(root):
        return False
    rest = path[len(root) :]
    if not rest:
        return not entry.only  # an entry about some files in a tree is not about the tree
    if rest[0] != "/" or not entry.tree:
        return False
    return not entry.allows(path.rsplit("/", 1)[-1], write)


def _segments_match(pattern: str, path: str, tail: bool = False) -> bool:
    """`path` is `pattern` segment by segment (each may be a glob); with
    `tail`, `pattern` may sit under any directory."""
    want, got = pattern.split("/"), path.split("/")
    if len(got) < len(want) or (not tail and len(got) != len(want)):
        return False
    return all(
        w == g or (paths.is_glob(w) and fnmatch.fnmatchcase(g, w))
        for w, g in zip(want, got[len(got) - len(want) :], strict=True)
    )


def _glob_prefix(root: str, path: str) -> str | None:
    """The part of `path` a tree entry's glob root names, if it names one."""
    count = root.count("/") + 1
    head = "/".join(path.split("/")[:count])
    return head if _segments_match(root, head) else None


def containers(table: Table) -> frozenset[str]:
    """Directories that hold protected files: copying or extracting into one
    can replace them. A home directory and `/etc` are left out (too broad)."""
    found: set[str] = set()
    for entry in table.entries:
        if entry.suffix:
            continue
        if entry.tree:
            found.add(entry.path)
        parent = entry.path.rsplit("/", 1)[0]
        if parent not in ("~", "", "/etc"):
            found.add(parent)
    return frozenset(found)
