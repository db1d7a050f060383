"""`redline log export`: the approval log as JSON lines or CSV, to ship to
other tools.

Entries are streamed in the chain's order (`Store.links`: a cursor on
SQLite, keyset pages on PostgreSQL), never loaded all at once. Arguments and
reasons leave as they were stored, redacted; they are redacted once more on
the way out, as `redline log show` does. The columns are the fields of
`redline log show --json`; in CSV a list is joined with commas and `args` is
its JSON text.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections.abc import Iterator
from datetime import datetime
from typing import IO, Any

from redline.audit.entry import Entry, Record, format_time
from redline.audit.redact import redact_value
from redline.audit.store import LogUnavailable, Store

FORMATS = ("jsonl", "csv")
COLUMNS = ("seq", "prev", "hash", *Record._fields)  # the keys of `Entry.to_json`


def add_export(actions: Any, store: argparse.ArgumentParser, moment: Any) -> None:
    export = actions.add_parser(
        "export",
        parents=[store],
        help="write entries as JSON lines or CSV, oldest first, for other tools",
        description="Write log entries, oldest first, as JSON lines or CSV (with a header "
        "row). Secrets stay redacted as stored. Exit 0 written, 1 error.",
    )
    export.add_argument("--format", choices=FORMATS, default="jsonl", help="default jsonl")
    export.add_argument("--since", type=moment, metavar="WHEN", help="ISO time (UTC) or age: 2d")
    export.add_argument("--until", type=moment, metavar="WHEN", help="ISO time (UTC) or age")
    export.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    export.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    from redline.cli.log import _error, _open

    try:
        with _open(args) as store:
            if args.output is None:
                count = export(store, sys.stdout, args.format, args.since, args.until)
            else:
                with _create(args.output) as out:
                    count = export(store, out, args.format, args.since, args.until)
    except LogUnavailable as err:
        return _error(str(err))
    except OSError as err:
        return _error(f"cannot write `{args.output}`: {err.strerror}")
    except ValueError as err:
        return _error(f"{err}; the log may have been tampered with: run `redline log verify`")
    if args.output is not None:
        entries = "1 entry" if count == 1 else f"{count} entries"
        print(f"wrote {entries} to {args.output}", file=sys.stderr)
    return 0


def _create(path: str) -> IO[str]:
    """`path` for writing, readable by its owner only: the log is the owner's."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    return os.fdopen(fd, "w", encoding="utf-8", newline="")


def selected(store: Store, since: datetime | None, until: datetime | None) -> Iterator[Entry]:
    """Entries with `since <= time < until`, in seq order, one at a time."""
    low = None if since is None else format_time(since)
    high = None if until is None else format_time(until)
    for link in store.links():
        entry = Entry.from_link(link)
        time = entry.record.time
        if (low is None or time >= low) and (high is None or time < high):
            yield entry


def export(
    store: Store, out: IO[str], fmt: str, since: datetime | None, until: datetime | None
) -> int:
    """Write the selected entries to `out` in `fmt`; how many were written."""
    count = 0
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        for count, entry in enumerate(selected(store, since, until), 1):  # noqa: B007
            data = redact_value(entry.to_json())
            writer.writerow([_cell(data[column]) for column in COLUMNS])
    else:
        for count, entry in enumerate(selected(store, since, until), 1):  # noqa: B007
            out.write(json.dumps(redact_value(entry.to_json()), ensure_ascii=False) + "\n")
    out.flush()
    return count


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return ",".join(value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)
