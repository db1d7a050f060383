"""Reading a policy file: YAML to a validated `Policy`, with every problem
reported as `file:line`, a help text, and "did you mean" for unknown names.

Validation is by hand over YAML nodes (their marks give line numbers), so
the hook never imports a validation library. A loaded policy is compiled to
JSON in a cache directory, keyed by a hash of the file and of what it is
validated against; the next process reads that and never imports YAML.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from redline import jsoncodec
from redline.digest import short_digest
from redline.fasttuple import NamedTuple
from redline.policy.model import Policy

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


LOADER_VERSION = "2"
PathLike = str | os.PathLike[str]


class Issue(NamedTuple):
    line: int
    message: str
    help: str = ""
    warning: bool = False

    def render(self, source: str) -> str:
        level = "warning" if self.warning else "error"
        where = f"{source}:{self.line}" if self.line else source
        text = f"{where}: {level}: {self.message}"
        return text + (f"\n  help: {self.help}" if self.help else "")


class PolicyError(Exception):
    """A policy that cannot be used; `issues` say where and how to repair it."""

    def __init__(self, source: str, issues: Iterable[Issue]) -> None:
        self.source = source
        self.issues = tuple(issues)
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(issue.render(self.source) for issue in self.issues)


def did_you_mean(word: str, options: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, sorted(set(options)), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else ""


def default_policy_path() -> str:
    return os.path.join(os.path.dirname(__file__), "default.yaml")


def parse_policy(text: str, source: str = "<policy>") -> Policy:
    """Validate policy text; raises `PolicyError` with every problem found."""
    import yaml

    from redline.policy.validate import Reader

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(text, Loader=loader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = error.problem or error.context or "cannot be parsed"
        raise PolicyError(
            source,
            [
                Issue(
                    line,
                    f"invalid yaml: {problem}",
                    "fix the yaml syntax on or just before this line",
                )
            ],
        ) from None
    except yaml.YAMLError as error:
        raise PolicyError(
            source, [Issue(1, f"invalid yaml: {error}", "fix the yaml syntax")]
        ) from None
    reader = Reader()
    policy = reader.policy(node, source)
    issues = sorted(reader.issues, key=lambda i: i.line)
    if policy is None or any(not i.warning for i in issues):
        raise PolicyError(source, issues)
    warnings = tuple((i.line, i.message, i.help) for i in issues if i.warning)
    return policy._replace(warnings=warnings)


def _validation_key() -> bytes:
    """What a compiled policy depends on besides its text: the rule ids and
    categories it was checked against, and the tool names."""
    from redline.gate.tools import TOOLS
    from redline.rules.catalog import CATEGORIES, RULE_IDS

    parts = [LOADER_VERSION, *RULE_IDS, *CATEGORIES, *TOOLS]
    return "\n".join(parts).encode()


def load_policy(
    path: PathLike, *, cache_dir: PathLike | None = None, check_examples: bool = True
) -> Policy:
    """Read, validate and (by default) self-check a policy file."""
    source = os.fspath(path)
    cache = None if cache_dir is None else os.fspath(cache_dir)
    try:
        with open(source, "rb") as file:
            data = file.read()
    except OSError as error:
        raise PolicyError(
            source,
            [
                Issue(
                    0,
                    f"cannot read the policy file: {error.strerror}",
                    "check the path given with `--policy` or `$REDLINE_POLICY`",
                )
            ],
        ) from None
    # A cache key, not a security boundary: the cache lives in the gate's own
    # (never-run) home.
    key = short_digest(b"\0".join((_validation_key(), source.encode(), data)))
    cached = _read_cache(cache, key, check_examples)
    if cached is not None:
        return cached
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PolicyError(
            source, [Issue(1, "the policy file is not utf-8 text", "save the file as utf-8")]
        ) from None
    policy = parse_policy(text, source)._replace(digest=key)
    if check_examples:
        from redline.policy.selfcheck import example_issues

        issues = example_issues(policy)
        if issues:
            raise PolicyError(source, issues)
    _write_cache(cache, key, policy, check_examples)
    return policy


def _cache_file(cache_dir: str, key: str, checked: bool) -> str:
    return os.path.join(cache_dir, f"policy-{key[:40]}{'' if checked else '-unchecked'}.json")


def _read_cache(cache_dir: str | None, key: str, checked: bool) -> Policy | None:
    if cache_dir is None:
        return None
    try:
        with open(_cache_file(cache_dir, key, checked), encoding="utf-8") as file:
            data: Any = jsoncodec.load(file)
        policy = Policy.from_json(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return policy if policy.digest == key else None


def _write_cache(cache_dir: str | None, key: str, policy: Policy, checked: bool) -> None:
    """Best effort: a cache that cannot be written only costs the next start.
    The cache directory is made only inside a gate home that exists."""
    if cache_dir is None or not os.path.isdir(os.path.dirname(os.path.abspath(cache_dir))):
        return
    import tempfile

    try:
        os.makedirs(cache_dir, mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".policy-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            jsoncodec.dump(policy.to_json(), out)
        os.replace(tmp, _cache_file(cache_dir, key, checked))
    except OSError:
        return
