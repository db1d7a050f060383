"""Every rule proves itself: its must-match examples hit it and its
must-not-match examples do not. The catalogue refuses to load otherwise.

Running every example costs tens of milliseconds, too much for a hook that
starts once per tool call, so a passing run leaves a marker keyed by the
exact source files of the shell analysis and the rules; a changed file
means the examples run again, after every rule pattern is compiled (they are
otherwise compiled on first use, docs/adr/0003). The marker holds the
catalogue's index (which rule families look at which programs), so that a
process loads only the families its call needs; without a marker, every
family loads.
"""

from __future__ import annotations

import os

from redline.digest import short_digest
from redline.rules.model import Rule

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any

INDEX_FORMAT = 2  # 2: with the old ids (`aliases`)


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


def pattern_failures() -> list[str]:
    """Compile every rule pattern: a broken one fails the catalogue now, not on
    the first call that would have used it. Every module of the rules package
    is imported first, so patterns of modules loaded on demand count too."""
    import importlib
    import re

    from redline.shell.lazy_regex import compile_all

    folder = os.path.dirname(os.path.abspath(__file__))
    try:
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py") and name != "__init__.py":
                importlib.import_module(f"redline.rules.{name[:-3]}")
        compile_all()
    except re.error as err:
        return [f"a rule pattern does not compile: {err} in `{err.pattern!r}`"]
    return []


def _sources_digest() -> str:
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    stamp = []
    for folder in ("shell", "rules"):
        # `scandir`: each file's stat without joining its path (~100 files, every hook).
        with os.scandir(os.path.join(package, folder)) as entries:
            found = {e.name: e for e in entries if e.name.endswith(".py")}
        for name in sorted(found):
            stat = found[name].stat()
            stamp.append(f"{folder}/{name}:{stat.st_size}:{stat.st_mtime_ns}")
    text = ";".join(stamp).encode()
    return short_digest(text)


def _marker_dirs() -> list[str]:
    from redline.home import home_dir

    package_cache = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
    return [package_cache, os.path.join(home_dir(), "cache")]


def verified_index() -> dict[str, Any] | None:
    """The catalogue's index saved by the last passing run over these exact
    sources, or None: then load every rule and call `verify`."""
    from redline import jsoncodec

    name = f"catalog-{_sources_digest()}.json"
    for folder in _marker_dirs():
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as file:
                index = jsoncodec.load(file)
        except (OSError, ValueError):
            continue
        if isinstance(index, dict) and index.get("format") == INDEX_FORMAT:
            return index
    return None


def verify(rules: tuple[Rule, ...], index: dict[str, Any]) -> None:
    """Raise CatalogError unless every rule's examples hold; on success save
    `index` (what the catalogue needs to load its families on demand) as the
    marker of these sources."""
    from redline import jsoncodec

    failures = pattern_failures() + example_failures(rules)
    if failures:
        raise CatalogError(
            f"{len(failures)} rule example(s) fail: " + "; ".join(failures[:5])
            + " (help: fix the rule or its examples; the catalogue will not load until they agree)"
        )  # fmt: skip
    name = f"catalog-{_sources_digest()}.json"
    text = jsoncodec.dumps({**index, "format": INDEX_FORMAT}, sort_keys=True)
    for folder in _marker_dirs():
        try:
            os.makedirs(folder, exist_ok=True)
            temporary = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
            with open(temporary, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, os.path.join(folder, name))  # whole, or not at all
            return
        except OSError:
            continue  # read-only install: verify again next time
