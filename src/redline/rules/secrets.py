"""Which files hold secrets: private keys, credentials, the agents' own
tokens, project `.env` files. Used by the rules about sending them away."""

from __future__ import annotations

import fnmatch
import re

from redline.shell import paths
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

_HOME_ROOT = lazy_regex(r"\A(?:/home/[^/]+|/Users/[^/]+|/root|/var/root)(?=/|\Z)")

# Files whose whole content is a secret, home-relative where they live in a home.
SECRET_FILES: tuple[str, ...] = (
    "~/.aws/credentials", "~/.netrc", "~/.git-credentials", "~/.pgpass",
    "~/.docker/config.json", "~/.kube/config", "~/.config/gh/hosts.yml", "~/.npmrc",
    "~/.pypirc", "~/.config/gcloud/application_default_credentials.json",
    "~/.config/gcloud/credentials.db", "~/.azure/msal_token_cache.json",
    "~/.hermes/.env", "~/.claude/.credentials.json", "~/.codex/auth.json",
    "~/.gemini/oauth_creds.json", "~/.gemini/.env", "~/.gemini/google_accounts.json",
    "/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
)  # fmt: skip
# Directories where everything is secret.
SECRET_DIRS: tuple[str, ...] = ("~/.gnupg", "~/.password-store")
SSH_DIR = "~/.ssh"
_SSH_PUBLIC = frozenset({"config", "known_hosts", "known_hosts.old", "authorized_keys",
                         "authorized_keys2", "environment", "rc"})  # fmt: skip
# Directories that hold secrets among other things: sending one whole sends them.
_HOLDERS = frozenset(
    d
    for loc in (*SECRET_FILES, *SECRET_DIRS, SSH_DIR + "/id_rsa", "/etc/ssh/ssh_host_rsa_key")
    for d in (loc.rsplit("/", k)[0] for k in range(1, loc.count("/")))
    if d not in ("~", "/", "/etc", "")
)
_PUBLIC_WORDS = frozenset({"cert", "certs", "certificate", "fullchain", "chain", "ca", "cacert",
                           "bundle", "pub", "public", "crt", "trust", "root"})  # fmt: skip
_NEVER_SECRET_ENV = frozenset({"example", "sample", "template", "dist", "defaults", "schema",
                               "tmpl", "tpl", "md", "txt"})  # fmt: skip
_KEY_NAMES = lazy_regex(r"\Aid_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:[-_.].*)?\Z")
_SAMPLES = ("id_rsa", "id_ed25519", "credentials", "config.json", "config", "hosts.yml",
            "shadow", "auth.json", ".credentials.json", "oauth_creds.json", ".env", ".env.local",
            ".netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc", "ssh_host_rsa_key",
            "privkey.pem", "server.key", "store.p12", "pubring.kbx")  # fmt: skip
_SERVICE_ACCOUNT = lazy_regex(r"\A(?:.*[-_.])?service[-_]?account(?:[-_.].*)?\Z")
_HERMES_HOME = lazy_regex(r"\$\{?HERMES_HOME\}?/+(.*)\Z")


def home_relative(path: str) -> str:
    """`/root/.ssh` and `/home/bob/.ssh` as `~/.ssh`: any home holds the same files."""
    if not path.startswith(paths.HOME_PREFIXES):
        return path  # no home prefix: the pattern need not compile
    return _HOME_ROOT.sub("~", path, count=1)


def canonical(value: str, cwd: str | None, raw: str = "") -> str | None:
    """The home-relative normal spelling of a path word, `$HERMES_HOME` included."""
    if value.startswith(DYNAMIC):
        match = _HERMES_HOME.search(raw)
        if match is None:
            return None
        value = "~/.hermes/" + match.group(1)
    path = paths.normalize(value, cwd)
    return None if path is None else home_relative(path)


def is_secret(path: str) -> bool:
    """A canonical path that is, holds, or may match (as a glob) a secret."""
    if paths.is_glob(path):
        return _glob_secret(path)
    return _secret_location(path) or secret_name(path.rsplit("/", 1)[-1])


def is_project_env(name: str) -> bool:
    """`.env` and `.env.production`, but not `.envrc` nor `.env.example`; in any
    case (`.ENV` is the same file where names ignore case, as on macOS)."""
    name = name.lower()
    if name == ".env":
        return True
    if not name.startswith(".env."):
        return False
    return not set(name[5:].lower().split(".")) & _NEVER_SECRET_ENV


def secret_name(name: str) -> bool:
    """A file name that is secret wherever it lives."""
    lower = name.lower()
    if is_project_env(name) or (lower.startswith("id_") and _KEY_NAMES.match(lower)):
        return not lower.endswith(".pub")
    stem, dot, ext = lower.rpartition(".")
    if not dot:
        return False
    if ext in ("p12", "pfx", "jks", "keystore", "ppk"):
        return True
    if ext == "json" and _SERVICE_ACCOUNT.match(stem):
        return True  # a cloud service account's key
    if ext in ("pem", "key"):
        return not set(re.split(r"[-_.]", stem)) & _PUBLIC_WORDS
    return False


def _secret_location(path: str) -> bool:
    if path in SECRET_FILES or path in _HOLDERS:
        return True
    if any(paths.is_under(path, d) for d in SECRET_DIRS):
        return True
    if path == SSH_DIR:
        return True
    if paths.is_under(path, SSH_DIR):
        first = path[len(SSH_DIR) + 1 :].split("/", 1)[0]
        return not (first in _SSH_PUBLIC or first.endswith(".pub"))
    if paths.is_under(path, "/etc/ssh"):
        name = path.rsplit("/", 1)[-1]
        return path == "/etc/ssh" or (name.startswith("ssh_host_") and not name.endswith(".pub"))
    return path.endswith("/environ") and bool(
        re.fullmatch(r"/proc/[^/]+(?:/task/[^/]+)?/environ", path)
    )


def _glob_secret(pattern: str) -> bool:
    head, _, base = pattern.rpartition("/")
    literal = "".join(c for c in base if c not in "*?[]!")
    for name in _SAMPLES:
        if name.startswith(".") and not base.startswith("."):
            continue  # bash globs skip dot files
        if not fnmatch.fnmatchcase(name, base):
            continue
        candidate = f"{head}/{name}" if head else name
        if not paths.is_glob(head) and _secret_location(candidate):
            return True
        if len(literal) >= 2 and secret_name(name):
            return True
    candidates = (*SECRET_FILES, *SECRET_DIRS, SSH_DIR, *_HOLDERS)
    return any(_glob_match(pattern, c) for c in candidates)


def _glob_match(pattern: str, path: str) -> bool:
    """Bash's matching: `*` stays within one component and skips dot files."""
    wanted, parts = pattern.split("/"), path.split("/")
    return len(wanted) == len(parts) and all(
        fnmatch.fnmatchcase(part, want) and (want.startswith(".") or not part.startswith("."))
        for want, part in zip(wanted, parts, strict=True)
    )
