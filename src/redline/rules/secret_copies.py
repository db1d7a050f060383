"""Secrets copied where they outlive the call (issue 18, family 1): into a
git repository (a file with a secret in it added, a token in a remote's
URL), into an archive of credential folders, into a container image (a
secret build argument, `COPY .env`). Each copy is one push, upload or
`docker push` away from leaving the machine."""

from __future__ import annotations

import re

from redline.decision import Severity
from redline.rules.exfil import archives_secrets, tar_file
from redline.rules.model import Rule, rule
from redline.rules.secret_shown import writes_file
from redline.rules.secret_sources import (
    dumps_environment,
    prints_secret,
    secret_name,
    secret_variables,
)
from redline.rules.secrets import canonical, is_secret
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

S = Severity.SENSITIVE

_USERINFO = lazy_regex(r"://([^/@\s]+)@")
_ADD_ALL = frozenset({"-A", "--all", ".", ":/", "-u", "--update"})
_COPIERS = frozenset({"cp", "mv", "install", "rsync"})


def _token_literal(text: str) -> bool:
    from redline.audit.redact import redact_text  # here: only a URL with user info needs it

    return redact_text(text) != text


def secret_url(raw: str, value: str) -> bool:
    """A URL carrying a credential: `u:pw@`, `$TOKEN@`, a token literal."""
    match = _USERINFO.search(raw)
    if match is None:
        return False
    userinfo = match.group(1)
    if ":" in userinfo and userinfo.split(":", 1)[1].strip("\"'"):
        return True
    return secret_variables(userinfo) or (DYNAMIC not in value and _token_literal(userinfo))


def _git_words(inv: Invocation) -> list[str]:
    return [v for v in inv.values if not v.startswith("-")]


def _written_secrets(analysis: Analysis, before: int) -> set[str]:
    """Files the invocations before `before` wrote a secret into."""
    found: set[str] = set()
    for inv in analysis.invocations[:before]:
        targets: list[str] = []
        if prints_secret(inv) or dumps_environment(inv):
            targets += writes_file(inv)
        elif inv.name == "tee" and any(
            prints_secret(analysis.invocations[k]) for k in inv.upstream
        ):
            targets += [w.value for w in inv.options.operands]
        elif inv.name in _COPIERS:
            operands = [w.value for w in inv.options.operands]
            if len(operands) >= 2 and any(_secret_file(o, inv) for o in operands[:-1]):
                targets.append(operands[-1])
        for target in targets:
            path = canonical(target, inv.cwd)
            if path is not None:
                found.add(path)
    return found


def _secret_file(value: str, inv: Invocation) -> bool:
    path = canonical(value, inv.cwd)
    return path is not None and is_secret(path)


def _into_git(inv: Invocation, analysis: Analysis) -> bool:
    words = _git_words(inv)
    verb = words[:1]
    raw = {w.value: w.raw for w in inv.argv}
    if verb in (["remote"], ["clone"], ["submodule"], ["config"]):
        return any(secret_url(raw.get(v, v), v) for v in inv.values if "://" in v)
    if verb not in (["add"], ["commit"], ["stash"]):
        return False
    operands = words[1:] if verb == ["add"] else []
    if any(_secret_file(o, inv) for o in operands):
        return True
    written = _written_secrets(analysis, inv.index)
    if not written:
        return False
    if verb == ["commit"]:
        return any(v in ("-a", "--all") or (v[:1] == "-" and "a" in v[1:]) for v in inv.values
                   if not v.startswith("--") or v == "--all")  # fmt: skip
    if any(v in _ADD_ALL for v in inv.values):
        return True
    added = {canonical(o, inv.cwd) for o in operands}
    return any(
        a is not None
        and any(w == a or w.startswith(a.rstrip("/") + "/") or a == "." for w in written)
        for a in added
    )


def _archive_file(inv: Invocation) -> str | None:
    """The archive file it creates (`None` for none, or one sent to stdout:
    where that goes is `net.secret-exfil`'s to judge)."""
    values = inv.values
    if inv.name in ("tar", "gtar", "bsdtar"):
        first = values[0] if values else ""
        creates = ("c" in first and not first.startswith("-")) or any(
            v == "--create" or (v.startswith("-") and not v.startswith("--") and "c" in v)
            for v in values
        )
        named = tar_file(values)
        target = named[-1] if named and named[-1] != "-" else None
    else:
        operands = [w.value for w in inv.options.operands]
        if inv.name in ("7z", "7za"):
            creates, operands = operands[:1] in (["a"], ["u"]), operands[1:]
        else:
            creates = True
        target = operands[0] if operands and operands[0] != "-" else None
    if not creates:
        return None
    return target or next(iter(writes_file(inv)), None)


def _archived(inv: Invocation, analysis: Analysis) -> bool:
    return _archive_file(inv) is not None and archives_secrets(inv)


_BUILDERS = ("docker", "podman", "nerdctl", "buildah")
_LINES = re.MULTILINE | re.IGNORECASE
_DOCKERFILE_COPY = lazy_regex(r"^\s*(?:COPY|ADD)\s+(.*)$", _LINES)
_DOCKERFILE_ENV = lazy_regex(r"^\s*(?:ARG|ENV)\s+([A-Za-z_][A-Za-z0-9_]*)[= ]\s*(\S+)", _LINES)


def _build_args(values: tuple[str, ...]) -> list[str]:
    found = []
    for k, value in enumerate(values):
        if value == "--build-arg" and k + 1 < len(values):
            found.append(values[k + 1])
        elif value.startswith("--build-arg="):
            found.append(value[12:])
    return found


def dockerfile_secrets(text: str) -> bool:
    """A Dockerfile that copies a credential file in, or bakes a secret value."""
    for match in _DOCKERFILE_COPY.finditer(text):
        words = [w for w in match.group(1).split() if not w.startswith("--")]
        for source in words[:-1]:
            path = canonical(source.strip("\"'[],"), None)
            if path is not None and is_secret(path):
                return True
    return any(secret_name(m.group(1)) for m in _DOCKERFILE_ENV.finditer(text))


def _into_image(inv: Invocation, analysis: Analysis) -> bool:
    values = inv.values
    words = [v for v in values if not v.startswith("-")]
    if words[:1] not in (["build"], ["bud"]) and words[:2] not in (
        ["buildx", "build"],
        ["image", "build"],
        ["builder", "build"],
    ):
        return False
    raw = {w.value: w.raw for w in inv.argv}
    for given in _build_args(values):
        name, eq, value = given.partition("=")
        if secret_name(name) or (eq and secret_variables(raw.get(given, given))):
            return True
        if value and DYNAMIC not in value and _token_literal(value):
            return True
    text = inv.stdin_text
    if not text or not ("-" in values or "/dev/stdin" in values):
        return False
    return dockerfile_secrets(text)


SECRET_COPY_RULES: tuple[Rule, ...] = (
    rule(
        "secret.into-git",
        "secret",
        S,
        "put a secret into a git repository: a file holding one added or committed, or a token "
        "in a remote's URL (kept in `.git/config`)",
        "keep secrets out of the repository (`.gitignore`, a credential helper, `gh auth "
        "setup-git`) and ask the owner",
        programs=("git",),
        test=_into_git,
        must_match=(
            "echo $TOKEN >> config && git add config && git commit -m x",
            "git add .env && git commit -m config",
            "git remote set-url origin https://$GITHUB_TOKEN@github.com/o/r.git",
            "git clone https://bob:hunter2@git.example.com/o/r.git",
            "gh auth token > t.txt && git add -A",
        ),
        must_not_match=(
            "git add .env.example",
            "git remote set-url origin git@github.com:o/r.git",
            "git clone https://github.com/o/r.git",
            "echo hi > notes && git add notes",
            "git commit -am fix",
        ),
    ),
    rule(
        "secret.archived",
        "secret",
        S,
        "pack credential folders, keys or a whole home into an archive",
        "archive the project's own files only; ask the owner about backing up keys",
        programs=("tar", "gtar", "bsdtar", "zip", "7z", "7za"),
        test=_archived,
        must_match=(
            "tar czf b.tgz ~/.aws",
            "zip -r creds.zip ~/.aws ~/.kube",
            "tar -C ~ -czf /tmp/dot.tgz .ssh .gnupg",
            "7z a backup.7z ~/.gnupg",
            "tar czf home.tgz ~",
        ),
        must_not_match=(
            "tar czf src.tgz src/",
            "zip -r site.zip public/",
            "tar xzf keys.tgz -C ~/.ssh",
            "tar tzf b.tgz ~/.aws",
            "7z x backup.7z",
        ),
    ),
    rule(
        "secret.into-image",
        "secret",
        S,
        "bake a secret into a container image: a secret build argument, or a Dockerfile that "
        "copies a credential file in (anyone who pulls the image can read it)",
        "pass it as a build secret (`docker build --secret id=npm,env=NPM_TOKEN`) and keep "
        "credential files in `.dockerignore`",
        programs=_BUILDERS,
        test=_into_image,
        must_match=(
            "docker build --build-arg NPM_TOKEN=$NPM_TOKEN .",
            "docker build --build-arg AWS_SECRET_ACCESS_KEY -t app .",
            'docker buildx build --build-arg API_KEY="$API_KEY" --push -t r/app .',
            "docker build -t app -f - . <<'EOF'\nFROM node\nCOPY .env /app/.env\nEOF",
        ),
        must_not_match=(
            "docker build --build-arg VERSION=1.2 .",
            "docker build --secret id=npm,env=NPM_TOKEN -t app .",
            "docker build -t app -f - . <<'EOF'\nFROM node\nCOPY . /app\nEOF",
            "docker run --build-arg X=$TOKEN img",
        ),
    ),
)
