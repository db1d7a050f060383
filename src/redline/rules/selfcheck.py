"""Every rule proves itself: its must-match examples hit it and its
must-not-match examples do not. The catalogue refuses to load otherwise.

Running every example costs tens of milliseconds, too much for a hook that
starts once per tool call, so a passing run leaves a marker keyed by the
exact source files of the shell analysis and the rules; a changed file
means the examples run again.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from redline.rules.model import Rule


class CatalogError(Exception):
    """A rule's own examples disagree with it: the catalogue cannot be trusted."""


def example_failures(rules: tuple[Rule, ...]) -> list[str]:
    from redline.rules.catalog import evaluate
    from redline.shell.analysis import analyze

    failures: list[str] = []
    for r in rules:
        for example in r.must_match:
            if r.id not in {hit.rule_id for hit in evaluate(analyze(example), (r,))}:
                failures.append(f"rule `{r.id}` does not match its example `{example}`")
        for example in r.must_not_match:
            if r.id in {hit.rule_id for hit in evaluate(analyze(example), (r,))}:
                failures.append(f"rule `{r.id}` matches its counter-example `{example}`")
        if len(r.must_match) < 1 or len(r.must_not_match) < 1:
            failures.append(f"rule `{r.id}` needs must-match and must-not-match examples")
    return failures


def _sources_digest() -> str:
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for folder in ("shell", "rules"):
        for path in sorted((package / folder).glob("*.py")):
            stat = path.stat()
            digest.update(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()[:24]


def _marker_dirs() -> list[Path]:
    package_cache = Path(__file__).resolve().parent / "__pycache__"
    from redline.home import redline_home

    return [package_cache, redline_home() / "cache"]


def verify(rules: tuple[Rule, ...]) -> None:
    """Raise CatalogError unless every rule's examples hold."""
    name = f"catalog-{_sources_digest()}.verified"
    dirs = _marker_dirs()
    if any((d / name).is_file() for d in dirs):
        return
    failures = example_failures(rules)
    if failures:
        raise CatalogError(
            f"{len(failures)} rule example(s) fail: " + "; ".join(failures[:5])
            + " (help: fix the rule or its examples; the catalogue will not load until they agree)"
        )  # fmt: skip
    for folder in dirs:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).touch()
            return
        except OSError:
            continue  # read-only install: verify again next time
