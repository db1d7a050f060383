"""The "always" allowlist: approvals that outlive the session (F-GATE-6).

One JSON file beside the policy. Each entry is keyed by the rule's stable id
(an old id is read through its alias) and the subject it was granted for: for
a command, the program, its flags and its operands exactly as granted
(`git --force -- push origin feature`), so approving `git push --force origin
feature` approves neither `git push --force origin main` nor anything else a
rule flags; for a file tool, the kind and the path; for a fetch, the host.
Entries for hard lines and never-run kinds are never written or honoured.

Writes take a lock, re-read the file, merge (skipping entries already there),
write a temporary file and rename it over the old one. A file that cannot be
read is kept aside as `NAME.corrupt-TIMESTAMP`, reported, and treated as empty.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable

from redline import jsoncodec
from redline.gate.effects import Subject
from redline.rules.catalog import HARDLINE_IDS, resolve

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


FORMAT_VERSION = 1
FILE_NAME = "allowlist.json"
LOCK_TIMEOUT_S = 10.0

Grant = tuple[str, Subject]


def canonical_key(key: str) -> str:
    if key.startswith("policy:"):
        return key
    rule = resolve(key)
    return rule.id if rule is not None else key


def liftable(key: str) -> bool:
    """Hard lines and never-run kinds are never allowlisted."""
    canonical = canonical_key(key)
    return canonical not in HARDLINE_IDS and not canonical.startswith("never-run")


class CorruptAllowlist(ValueError):
    pass


def _parse(text: str) -> frozenset[Grant]:
    try:
        data: Any = jsoncodec.loads(text)
    except ValueError as error:
        raise CorruptAllowlist(f"not json: {error}") from None
    if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
        raise CorruptAllowlist(f"expected an object with `version: {FORMAT_VERSION}`")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise CorruptAllowlist("`entries` must be a list")
    grants: set[Grant] = set()
    for number, entry in enumerate(entries, 1):
        rule = entry.get("rule") if isinstance(entry, dict) else None
        subject = entry.get("subject") if isinstance(entry, dict) else None
        if (
            not isinstance(rule, str)
            or not isinstance(subject, list)
            or not all(isinstance(s, str) for s in subject)
        ):
            raise CorruptAllowlist(f"entry {number} needs a string `rule` and a list `subject`")
        if liftable(rule):
            grants.add((canonical_key(rule), tuple(subject)))
    return frozenset(grants)


class Allowlist:
    """Reads on demand (re-reading only when the file changed) and appends
    under a lock. Thread-safe for readers; writers serialise on the lock."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._stamp: tuple[int, int] | None = None
        self._grants: frozenset[Grant] = frozenset()
        self.warnings: list[str] = []
        self.listener: Callable[[tuple[Grant, ...], str], None] | None = None
        """Told of the grants each `add` wrote (the service's replicas share them)."""

    @property
    def lock_path(self) -> str:
        return self.path + ".lock"

    def grants(self) -> frozenset[Grant]:
        try:
            stat = os.stat(self.path)
        except OSError:
            self._stamp, self._grants = None, frozenset()
            return self._grants
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._stamp:
            self._grants = self._read()
            self._stamp = stamp
        return self._grants

    def _read(self) -> frozenset[Grant]:
        try:
            with open(self.path, encoding="utf-8") as file:
                text = file.read()
        except FileNotFoundError:
            return frozenset()
        except (OSError, UnicodeDecodeError) as error:
            return self._set_aside(str(error))
        try:
            return _parse(text)
        except CorruptAllowlist as error:
            return self._set_aside(str(error))

    def _set_aside(self, problem: str) -> frozenset[Grant]:
        aside = f"{self.path}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}"
        try:
            os.replace(self.path, aside)
            kept = f"kept aside as `{aside}`"
        except OSError as error:
            kept = f"could not be moved aside ({error.strerror})"
        warning = f"allowlist `{self.path}` is corrupt ({problem}); {kept}; treated as empty"
        self.warnings.append(warning)
        import logging

        logging.getLogger("redline.allowlist").warning("%s", warning)
        return frozenset()

    def add(self, grants: Iterable[Grant], note: str = "") -> tuple[Grant, ...]:
        """Append grants not already present; returns the ones written."""
        wanted = [(canonical_key(k), tuple(s)) for k, s in grants if liftable(k)]
        if not wanted:
            return ()
        from filelock import FileLock

        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        with FileLock(self.lock_path, timeout=LOCK_TIMEOUT_S):
            self._stamp = None
            existing = self._read()
            entries = self._entries() if existing else []
            added = [g for g in dict.fromkeys(wanted) if g not in existing]
            if not added:
                return ()
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            entries += [
                {"rule": k, "subject": list(s), "granted_at": stamp, "note": note} for k, s in added
            ]
            self._write({"version": FORMAT_VERSION, "entries": entries})
            self._stamp = None
        if self.listener is not None:
            self.listener(tuple(added), note)
        return tuple(added)

    def _entries(self) -> list[dict[str, Any]]:
        try:
            with open(self.path, encoding="utf-8") as file:
                data = jsoncodec.load(file)
        except (OSError, ValueError):
            return []
        entries = data.get("entries", []) if isinstance(data, dict) else []
        return [e for e in entries if isinstance(e, dict)]

    def _write(self, data: dict[str, Any]) -> None:
        import json  # indented for people to read: off a hook's path
        import tempfile

        folder, name = os.path.split(os.path.abspath(self.path))
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=1)
                out.write("\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            from contextlib import suppress  # only on this failure: off a hook's start

            with suppress(OSError):
                os.unlink(tmp)
            raise
