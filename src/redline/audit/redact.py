"""Secret redaction before anything is stored, printed or sent (F-SECRETS-2). Pure.

Two sources of secrets: values in known token formats (the `PATTERNS`
catalogue, each with its own must/must-not examples), and the values of
secret-named variables (`secret_values` picks them from a mapping such as the
process environment). A secret becomes `[REDACTED:<kind>]`. Redaction never
feeds a verdict: the gate decides on the raw call, this only cleans copies.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

from redline.fasttuple import NamedTuple
from redline.shell.lazy_regex import lazy_regex

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


MIN_VALUE_LENGTH = 8
"""A variable's value shorter than this is not hunted for in text (too many false hits)."""


class TokenPattern:
    """One kind of secret. When the regex has a `secret` group only that group
    is replaced (the key name, the scheme, the user stay readable); `accept`,
    when set, must also hold for a match to count. `hints` (lowercase) are
    cheap tests: when the text holds none of them the regex is not run.

    The regex is compiled on first use: most texts hold no hint, and the hook
    that records a call should not compile two dozen patterns to store `ls`."""

    __slots__ = ("_regex", "_source", "accept", "hints", "kind", "must_not_redact", "must_redact")

    def __init__(
        self,
        kind: str,
        regex: re.Pattern[str] | str,
        must_redact: tuple[str, ...],
        must_not_redact: tuple[str, ...],
        accept: Callable[[re.Match[str]], bool] | None = None,
        hints: tuple[str, ...] = (),
    ) -> None:
        self.kind = kind
        self._source = regex if isinstance(regex, str) else regex.pattern
        self._regex = None if isinstance(regex, str) else regex
        self.must_redact = must_redact
        self.must_not_redact = must_not_redact
        self.accept = accept
        self.hints = hints

    @property
    def regex(self) -> re.Pattern[str]:
        if self._regex is None:
            self._regex = re.compile(self._source)
        return self._regex

    def __repr__(self) -> str:
        return f"TokenPattern({self.kind!r}, {self._source!r})"

    def matches(self, text: str) -> list[re.Match[str]]:
        found = self.regex.finditer(text)
        return [m for m in found if self.accept is None or self.accept(m)]


def _p(
    kind: str,
    pattern: str,
    must: tuple[str, ...],
    must_not: tuple[str, ...],
    accept: Callable[[re.Match[str]], bool] | None = None,
) -> TokenPattern:
    return TokenPattern(kind, pattern, must, must_not, accept, _HINTS.get(kind, ()))


_HINTS: dict[str, tuple[str, ...]] = {
    "private-key": ("private key",),
    "anthropic": ("sk-ant-",),
    "openai": ("sk-",),
    "aws-key": ("akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "abia", "acca"),
    "aws-secret": ("secret",),
    "github": ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"),
    "gitlab": ("glpat-",),
    "slack": ("xox",),
    "google-api-key": ("aiza",),
    "stripe": ("_live_", "_test_"),
    "jwt": ("eyj",),
    "url-password": ("://",),
    "authorization": ("authorization",),
    "api-key-header": ("api-key", "auth-token", "private-token", "access-token"),
    "curl-user": ("curl",),
    "password-flag": ("--pass",),
    "mysql-password": ("mysql", "mariadb"),
    "sudo-password": ("sudo",),
    "telegram": (":",),
    "secret-env": ("=",),
}


_NOT_DONE = r"(?!\[REDACTED:)"
_VALUE = r"(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\";|&<>()`]+)"
PATTERNS: tuple[TokenPattern, ...] = (
    _p(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*\Z)",
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4\n-----END RSA PRIVATE KEY-----",
            "cat <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n",
            "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA\n-----END PRIVATE KEY-----",
        ),
        (
            "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----",
            "grep -r 'PRIVATE KEY' /etc/ssl",
        ),
    ),
    _p(
        "anthropic",
        r"\bsk-ant-[A-Za-z0-9_-]{20,}",
        ("ANTHROPIC_KEY sk-ant-api03-Abcdefghij0123456789_xyzXYZ-0123456789abcdEFGH",),
        ("sk-ant-short", "the desk-ant-farm is here"),
    ),
    _p(
        "openai",
        r"\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
        (
            "openai sk-abcdefghijklmnopqrstT3BlbkFJabcdefghijklmnopqrst",
            "key=sk-proj-Abc123_def456-GHI789jklMNO012pqrSTU345vwx",
        ),
        ("sk-learn is a typo", "use task-manager-for-everything-in-here", "risk-assessment-2024"),
    ),
    _p(
        "aws-key",
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\b",
        ("aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE", "ASIAY34FZKBOKMUTVV7A"),
        ("AKIA is a prefix", "AKIAIOSFODNN7EXAMPLEXTRA1234"),
    ),
    _p(
        "aws-secret",
        r"(?i)(?:aws_?)?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?"
        r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            '"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
        ),
        ("secret_key = short", "git show 3f786850e387550fdab836ed7e6dc881de23001b"),
    ),
    _p(
        "github",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{40,255})\b",
        (
            "git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r",
            "gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
            "ghs_0123456789abcdefghijklmnopqrstuvwxyzAB",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP",
        ),
        ("ghp_short", "see github_pat_docs for details"),
    ),
    _p(
        "gitlab",
        r"\bglpat-[A-Za-z0-9_-]{20,}",
        ("PRIVATE-TOKEN glpat-xxxxxxxxxxxxxxxxxxxx",),
        ("glpat-short", "the glpat- prefix"),
    ),
    _p(
        "slack",
        r"\bxox[abpr]-[A-Za-z0-9-]{10,}",
        ("token xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp", "xoxp-123456789012-abc"),
        ("xoxo-hugs-and-kisses", "xoxb-short"),
    ),
    _p(
        "telegram",
        r"(?<![\d:])\d{6,12}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])",
        ("curl https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0/getMe",),
        ("at 12:30:45 the job ran", "sha256:0123456789abcdef0123456789abcdef0123"),
    ),
    _p(
        "google-api-key",
        r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])",
        ("?key=AIzaSyA-abcdefghijklmnopqrstuvwxyz01234",),
        ("AIza is how they start", "AIzaSyShort"),
    ),
    _p(
        "stripe",
        r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}",
        ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "rk_test_51Habcdefghijklmnop"),
        ("pk_live_is_public", "task_test_runner"),
    ),
    _p(
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}",
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ),
        ("eyJhbGciOiJIUzI1NiJ9 alone", "a.b.c"),
    ),
    _p(
        "url-password",
        r"\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@\[\]]*:" + _NOT_DONE + r"(?P<secret>[^@\s/]+)@",
        (
            "psql postgresql://admin:hunter2@db.internal:5432/app",
            "git push https://user:p4ss%40word@example.com/repo.git",
        ),
        (
            "https://example.com:8443/path",
            "git@github.com:owner/repo.git",
            "ssh://git@host/repo",
        ),
    ),
    _p(
        "authorization",
        r"(?i)\b(?:proxy-)?authorization[\"']?\s*:\s*[\"']?(?:(?:bearer|basic|token|digest|bot)\s+)?+"
        + _NOT_DONE
        + r"(?P<secret>[^\s'\"]+)",
        (
            "curl -H 'Authorization: Bearer abc.def.ghi' https://api.example.com",
            'curl -H "authorization: Basic dXNlcjpwYXNz" https://x',
            "Authorization: token 0123456789abcdef",
        ),
        ("the authorization flow is documented", "authorization=granted"),
    ),
    _p(
        "api-key-header",
        r"(?i)\b(?:x-api-key|api-key|x-auth-token|private-token|x-access-token)[\"']?\s*:\s*[\"']?"
        + _NOT_DONE
        + r"(?P<secret>[^\s'\"]+)",
        ("curl -H 'X-Api-Key: 9f8e7d6c5b4a' https://x", "-H 'PRIVATE-TOKEN: abcdef123456'"),
        ("set x-api-key in the config", "the api-key header"),
    ),
    _p(
        "curl-user",
        r"\bcurl\b[^|;&\n]*?\s(?:-u\s*|--user[=\s]\s*)['\"]?[^\s:'\"]*:"
        + _NOT_DONE
        + r"(?P<secret>[^\s'\"]+)",
        ("curl -u admin:hunter22 https://x", "curl --user 'me:p4ss' https://x"),
        ("curl -u admin https://x", "curl -sS https://x:8080/a"),
    ),
    _p(
        "password-flag",
        r"(?<![\w-])--(?:password|passwd|pass)(?:=|\s+)(?!-)"
        + _NOT_DONE
        + r"(?P<secret>"
        + _VALUE
        + ")",
        (
            "mysql --user=root --password=s3cr3t db",
            "docker login --password hunter22 --username me",
            "mysqldump --password='p w' app",
        ),
        ("mysql --password", "mysql --password --user root", "grep --passphrase-file x"),
    ),
    _p(
        "mysql-password",
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlimport)\b[^|;&\n]*?"
        r"\s-p" + _NOT_DONE + r"(?P<secret>'[^'\n]*'|\"[^\"\n]*\"|[^\s'\";|&]+)",
        ("mysql -u root -ps3cr3t mydb", "mysqldump -h db -u app -p'x y z' app > dump.sql"),
        ("mysql -u root -p mydb", "mkdir -pv /tmp/x", "mysql -P 3306 -h db"),
    ),
    _p(
        "sudo-password",
        r"\b(?:echo|printf)\s+(?:-[neE]+\s+)?" + _NOT_DONE + r"(?P<secret>" + _VALUE + r")"
        r"\s*\|\s*sudo\b[^|;&\n]*?\s(?:-[A-Za-z]*S|--stdin\b)",
        ("echo hunter2 | sudo -S apt update", "printf 'pa ss\\n' | sudo -kS rm x"),
        ("echo hello | sudo tee /etc/motd", "echo done"),
    ),
    _p(
        "sudo-password",
        r"\bsudo\b[^|;&\n]*?\s-[A-Za-z]*S\b[^|;&\n]*?<<<\s*"
        + _NOT_DONE
        + r"(?P<secret>"
        + _VALUE
        + ")",
        ("sudo -S whoami <<< 'hunter2'",),
        ("cat <<< 'hello'",),
    ),
    _p(
        "secret-env",
        r"(?<![\w$])(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?!\$)"
        + _NOT_DONE
        + r"(?P<secret>"
        + _VALUE
        + ")",
        (
            "export GITHUB_TOKEN=abc123def456",
            "API_KEY=xyz789 ./deploy.sh",
            "DB_PASSWORD='two words' make migrate",
            "curl 'https://x/api?api_key=abcdef12&q=1'",
        ),
        (
            "export PATH=/usr/bin:$PATH",
            "GITHUB_TOKEN=$GH_TOKEN gh pr list",
            "KEYBOARD=us setxkbmap",
            "echo $API_KEY",
            "TOKENIZERS_PARALLELISM=false python train.py",
        ),
        lambda match: is_secret_name(match.group("name")),
    ),
)


def _marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _replace(pattern: TokenPattern, text: str) -> str:
    marker = _marker(pattern.kind)
    if "secret" not in pattern.regex.groupindex and pattern.accept is None:
        return pattern.regex.sub(marker, text)
    group = _group(pattern)
    accept = pattern.accept

    def one(match: re.Match[str]) -> str:
        value = match.group()
        if accept is not None and not accept(match):
            return value
        origin = match.start()
        start, end = match.span(group)
        return value[: start - origin] + marker + value[end - origin :]

    return pattern.regex.sub(one, text)


class KnownSecrets(NamedTuple):
    """Values to hunt for verbatim, by variable name (see `secret_values`)."""

    regex: re.Pattern[str] | None
    names: Mapping[str, str]

    def redact(self, text: str) -> str:
        if self.regex is None:
            return text
        names = self.names
        return self.regex.sub(lambda m: _marker(f"env:{names[m.group()]}"), text)


NO_SECRETS = KnownSecrets(None, {})

_SECRET_VAR = lazy_regex(
    r"(?i)(?:^|_|api|auth|access)(?:key|token|secret)s?$"
    r"|(?:^|_)(?:pass|pwd|credentials?|auth)$"
    r"|password|passwd|secret"
)
_NOT_SECRET_VARS = frozenset({"PWD", "OLDPWD", "XAUTHORITY", "GPG_AGENT_INFO"})
# Every name `_SECRET_VAR` matches ends with one of these or holds `passw`
# or `secret` (lowercased): most names (`PATH`, `SSH_AUTH_SOCK`) are told
# apart without compiling it in every hook. A name that is not ASCII (wider
# case folding) or holds a line break (`$`) goes to the pattern.
_SECRET_ENDINGS = ("key", "keys", "token", "tokens", "secret", "secrets", "pass", "pwd",
                   "credential", "credentials", "auth")  # fmt: skip


def is_secret_name(name: str) -> bool:
    """`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`, `api_key`: yes. `PWD`: no."""
    if name.isascii() and "\n" not in name:
        lowered = name.lower()
        named = "passw" in lowered or "secret" in lowered
        if not named and not lowered.endswith(_SECRET_ENDINGS):
            return False
    return name.upper() not in _NOT_SECRET_VARS and _SECRET_VAR.search(name) is not None


def secret_values(variables: Mapping[str, str]) -> KnownSecrets:
    """The values (at least `MIN_VALUE_LENGTH` long) of secret-named variables."""
    return _known(
        tuple(
            sorted(
                (name, value)
                for name, value in variables.items()
                if len(value) >= MIN_VALUE_LENGTH and is_secret_name(name)
            )
        )
    )


@lru_cache(maxsize=8)
def _known(pairs: tuple[tuple[str, str], ...]) -> KnownSecrets:
    if not pairs:
        return NO_SECRETS
    names = {value: name for name, value in pairs}
    alternatives = "|".join(re.escape(value) for value in sorted(names, key=len, reverse=True))
    return KnownSecrets(re.compile(alternatives), names)


_UNHINTED = tuple(pattern for pattern in PATTERNS if not pattern.hints)
_ALL_HINTS = frozenset(hint for pattern in PATTERNS for hint in pattern.hints)


def redact_text(text: str, known: KnownSecrets = NO_SECRETS) -> str:
    """`text` with every secret replaced by `[REDACTED:<kind>]`."""
    text = known.redact(text)
    lowered = text.lower()
    # Which hints the text holds, once (plain substring tests: no regex to compile).
    present = {hint for hint in _ALL_HINTS if hint in lowered}
    if not present:  # most texts: only a pattern without hints could match
        for pattern in _UNHINTED:
            text = _replace(pattern, text)
        return text
    for pattern in PATTERNS:
        if not pattern.hints or not present.isdisjoint(pattern.hints):
            text = _replace(pattern, text)
    return text


def redact_value(value: Any, known: KnownSecrets = NO_SECRETS) -> Any:
    """A JSON-like value with its strings redacted, and the whole value of any
    field whose name looks secret (`password`, `api_key`, `token`...)."""
    if isinstance(value, str):
        return redact_text(value, known)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = str(key)
            if _is_secret_field(name) and isinstance(item, str) and item:
                out[name] = _marker("secret-field")
            else:
                out[name] = redact_value(item, known)
        return out
    if isinstance(value, list | tuple):
        return [redact_value(item, known) for item in value]
    return value


def _is_secret_field(name: str) -> bool:
    return name.lower() not in {"key", "pwd", "auth"} and is_secret_name(name)


def self_check(patterns: Iterable[TokenPattern] = PATTERNS) -> list[str]:
    """Run every pattern's examples; return one line per failure (empty when all hold)."""
    failures: list[str] = []
    for pattern in patterns:
        marker = _marker(pattern.kind)
        for example in pattern.must_redact:
            found = pattern.matches(example)
            out = redact_text(example)
            secret = found[0].group(_group(pattern)) if found else ""
            if not found or marker not in out or secret in out:
                failures.append(f"{pattern.kind}: must redact `{example}`, got `{out}`")
        for example in pattern.must_not_redact:
            out = redact_text(example)
            if out != example:
                failures.append(f"{pattern.kind}: must not redact `{example}`, got `{out}`")
    return failures


def _group(pattern: TokenPattern) -> str | int:
    return "secret" if "secret" in pattern.regex.groupindex else 0
