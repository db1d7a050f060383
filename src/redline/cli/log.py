"""`redline log {show,verify,head,export}`: read, check, checkpoint and export the
approval log (export: `logexport`)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from redline.audit.entry import Entry, Head, Kind
from redline.audit.redact import redact_text, redact_value
from redline.audit.store import LogUnavailable, Query, Store, open_store, resolve_url, verify_store
from redline.cli import exitcodes

DEFAULT_LIMIT = 50
_AGE = re.compile(r"(\d+)([smhdw])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def add_parser(subparsers: Any, name: str, help_text: str) -> None:
    store = argparse.ArgumentParser(add_help=False)
    store.add_argument(
        "--store",
        metavar="URL",
        default=argparse.SUPPRESS,
        help="`sqlite:///PATH` or `postgresql://...` (default: $REDLINE_STORE, "
        "else log.sqlite3 in $REDLINE_HOME)",
    )
    parser = subparsers.add_parser(name, help=help_text, description=help_text, parents=[store])
    parser.set_defaults(handler=lambda _args: _usage(parser))
    actions = parser.add_subparsers(dest="log_action", metavar="ACTION")

    show = actions.add_parser(
        "show",
        parents=[store],
        help="list entries (newest last), or one entry with --id",
        description="List log entries, oldest of the selection first. Times are UTC.",
    )
    show.add_argument("--session", help="only this session")
    show.add_argument("--tool", help="only this tool (e.g. `Bash`, `terminal`)")
    show.add_argument("--verdict", choices=("allow", "ask", "deny"), help="only this verdict")
    show.add_argument("--rule", metavar="ID", help="only entries where this rule matched")
    show.add_argument("--kind", choices=[k.value for k in Kind], help="only this entry kind")
    show.add_argument("--since", type=_moment, metavar="WHEN", help="ISO time (UTC) or age: 2h, 7d")
    show.add_argument("--until", type=_moment, metavar="WHEN", help="ISO time (UTC) or age")
    show.add_argument(
        "--limit", type=int, default=DEFAULT_LIMIT, help=f"newest N (default {DEFAULT_LIMIT})"
    )
    show.add_argument("--json", action="store_true", help="one JSON object per line")
    show.add_argument("--id", type=int, metavar="SEQ", help="show entry SEQ in full")
    show.add_argument(
        "--payload", action="store_true", help="with --id: the kept payload of a blocked call"
    )
    show.set_defaults(handler=run_show)

    verify = actions.add_parser(
        "verify",
        parents=[store],
        help="check the whole hash chain (exit 5 if tampered)",
        description="Check every entry's hash and link; name the first entry that was "
        "edited, deleted, inserted or reordered. Exit 0 intact, 5 tampered, 1 error.",
    )
    verify.add_argument(
        "--head",
        metavar="FILE_OR_HASH",
        help="a head kept elsewhere (from `redline log head`, or the one `redline serve` "
        "sends to your Telegram chat): a file, `SEQ:HASH` or a hash; the entry at SEQ must "
        "still have that hash, which catches a truncated tail and a re-hashed rewrite",
    )
    verify.add_argument("--json", action="store_true", help="print the result as JSON")
    verify.set_defaults(handler=run_verify)

    head = actions.add_parser(
        "head",
        parents=[store],
        help="print the current head (seq and hash) to save as a checkpoint",
        description="Print the last entry's seq and hash as JSON. Save it elsewhere; "
        "`redline log verify --head FILE` then detects a truncated or rewritten log.",
    )
    head.set_defaults(handler=run_head)

    from redline.cli.logexport import add_export

    add_export(actions, store, _moment)


def run_show(args: argparse.Namespace) -> int:
    if args.payload and args.id is None:
        return _error("`--payload` needs `--id SEQ`; find the seq with `redline log show`")
    try:
        with _open(args) as store:
            if args.id is not None:
                return _show_one(store, args.id, payload=args.payload, as_json=args.json)
            query = Query(
                session=args.session,
                tool=args.tool,
                verdict=args.verdict,
                rule=args.rule,
                kind=args.kind,
                since=args.since,
                until=args.until,
                limit=args.limit if args.limit > 0 else None,
                newest_first=True,
            )
            entries = list(reversed(store.query(query)))
    except LogUnavailable as err:
        return _error(str(err))
    except ValueError as err:
        return _error(f"{err}; the log may have been tampered with: run `redline log verify`")
    if args.json:
        for entry in entries:
            _print(json.dumps(redact_value(entry.to_json()), ensure_ascii=False))
    else:
        _print_table(entries)
    return exitcodes.ALLOW


def run_verify(args: argparse.Namespace) -> int:
    try:
        head = None if args.head is None else _read_head(args.head)
    except ValueError as err:
        return _error(str(err))
    try:
        with _open(args) as store:
            result = verify_store(store, head)
            url = store.url
    except LogUnavailable as err:
        return _error(str(err))
    if args.json:
        broken = result.broken
        _print(
            json.dumps(
                {
                    "ok": result.ok,
                    "store": url,
                    "count": result.count,
                    "head": None if result.head is None else result.head.to_json(),
                    "broken": None
                    if broken is None
                    else {"seq": broken.seq, "kind": str(broken.kind), "detail": broken.detail},
                }
            )
        )
    elif result.broken is None:
        where = "" if result.head is None else f"; head {result.head}"
        entries = "1 entry" if result.count == 1 else f"{result.count} entries"
        _print(f"ok: {entries} intact in {url}{where}")
    else:
        _print(f"tampered: {result.broken} (in {url})")
    return exitcodes.ALLOW if result.ok else exitcodes.TAMPERED


def run_head(args: argparse.Namespace) -> int:
    try:
        with _open(args) as store:
            head = store.head()
            url = store.url
    except LogUnavailable as err:
        return _error(str(err))
    if head is None:
        return _error(f"the approval log {url} is empty; record a call before saving its head")
    saved = {**head.to_json(), "time": datetime.now(UTC).isoformat(), "store": url}
    _print(json.dumps(saved))
    return exitcodes.ALLOW


def _open(args: argparse.Namespace) -> Store:
    return open_store(resolve_url(getattr(args, "store", None), os.environ), create=False)


def _show_one(store: Store, seq: int, *, payload: bool, as_json: bool) -> int:
    entry = store.get(seq)
    if entry is None:
        return _error(f"no entry `{seq}` in the approval log; list entries with `redline log show`")
    kept = store.payload(seq) if payload else None
    if payload and kept is None:
        return _error(
            f"no payload kept for entry `{seq}`: only blocked calls keep one, "
            "and it is purged when it expires"
        )
    if as_json:
        data = entry.to_json()
        if kept is not None:
            data["payload"] = kept.body
            data["payload_expires_at"] = kept.expires_at
        _print(json.dumps(redact_value(data), ensure_ascii=False))
    elif kept is not None:
        _print_payload(kept.body)
    else:
        _print_entry(entry)
    return exitcodes.ALLOW


def _print_entry(entry: Entry) -> None:
    for key, value in entry.to_json().items():
        if key == "args":
            shown = json.dumps(redact_value(value), indent=2, ensure_ascii=False)
            _print("args:\n  " + shown.replace("\n", "\n  "))
        elif value is not None and value != "" and value != []:
            text = ", ".join(value) if isinstance(value, list) else str(value)
            _print(f"{key}: {redact_text(text)}")


def _print_payload(body: str) -> None:
    """A JSON object payload is shown field by field, strings unescaped, so an
    inline script reads as it was written."""
    try:
        value = json.loads(body)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        _print(redact_text(body))
        return
    for key, item in value.items():
        text = item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)
        _print(f"--- {key}")
        _print(redact_text(text))


def _print_table(entries: list[Entry]) -> None:
    rows = [("SEQ", "TIME (UTC)", "VERDICT", "TOOL", "SESSION", "RULES", "CALL")]
    for entry in entries:
        r = entry.record
        if r.kind == Kind.OUTCOME:
            verdict = r.outcome or "?"
            rules = f"-> #{r.ref}"
            call = " ".join(f"{k} {v}" for k, v in (("by", r.approved_by), ("via", r.channel)) if v)
        elif r.kind == Kind.NOTICE:
            verdict, rules, call = "undelivered", f"-> #{r.ref}", f"{r.channel}: {r.reason}"
        elif r.kind == Kind.OPINION:
            verdict, rules = (r.code or "opinion").removeprefix("opinion-"), f"-> #{r.ref}"
            call = f"second opinion ({r.channel}): {r.reason}"
        else:
            verdict = r.verdict or "?"
            rules = ",".join(r.rules) or (r.code or "")
            call = _summary(r.arguments())
        time = r.time[:19].replace("T", " ")
        rows.append((str(entry.seq), time, verdict, r.tool or "", r.session or "", rules, call))
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        _print(redact_text("  ".join([*cells, row[6]]).rstrip()))
    if len(rows) == 1:
        _print("(no entries match)")


# What names a call best: its command, else the file it writes (each host's
# own key), else its URL. A patch (Codex's `apply_patch`) is named by its files.
_MAIN_KEYS = ("command", "path", "file_path", "filePath", "notebook_path", "absolute_path", "url")


def _summary(args: Any, width: int = 80) -> str:
    if isinstance(args, dict):
        main = next((args[k] for k in _MAIN_KEYS if isinstance(args.get(k), str)), None)
        if isinstance(main, str) and main.lstrip().startswith("*** Begin Patch"):
            main = _patched(main)
        text = main if isinstance(main, str) else json.dumps(args, ensure_ascii=False)
    else:
        text = json.dumps(args, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _patched(patch: str) -> str:
    files = re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", patch, re.MULTILINE)
    return "patch " + ", ".join(f.strip() for f in files) if files else patch


def _read_head(text: str) -> Head:
    path = Path(text)
    if len(text) < 256 and path.is_file():
        try:
            return Head.parse(path.read_text(encoding="utf-8"))
        except OSError as err:
            raise ValueError(f"cannot read the saved head `{text}`: {err.strerror}") from None
    return Head.parse(text)


def _moment(text: str) -> datetime:
    age = _AGE.fullmatch(text.strip())
    if age is not None:
        return datetime.now(UTC) - timedelta(**{_UNITS[age.group(2)]: int(age.group(1))})
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"bad time `{text}`; use an ISO time such as `2025-06-01T12:00` (UTC) "
            "or an age such as `30m`, `2h`, `7d`"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return exitcodes.USAGE


def _error(message: str) -> int:
    print(f"error: {redact_text(message)}", file=sys.stderr)
    return exitcodes.ERROR


def _print(text: str) -> None:
    print(text)
