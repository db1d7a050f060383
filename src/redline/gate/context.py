"""Who is behind a call, carried in `contextvars` (F-GATE-5).

The context says whether anyone can answer an ask: a person at the terminal
(`interactive`), the owner through a messaging gateway (`gateway`), nobody
(`cron`, `single_query`). It travels with the session key in a `ContextVar`,
so concurrent sessions (threads or asyncio tasks) never see each other's.
"""

from __future__ import annotations

import enum
from contextvars import ContextVar, Token

from redline.fasttuple import NamedTuple


class ContextKind(enum.StrEnum):
    INTERACTIVE = "interactive"
    GATEWAY = "gateway"
    CRON = "cron"
    SINGLE_QUERY = "single_query"


# Contexts where nobody can answer an ask.
UNATTENDED = frozenset({ContextKind.CRON, ContextKind.SINGLE_QUERY})
DEFAULT_SESSION = "default"


class CallContext(NamedTuple):
    kind: ContextKind = ContextKind.INTERACTIVE
    session: str = DEFAULT_SESSION

    @property
    def unattended(self) -> bool:
        return self.kind in UNATTENDED


_current: ContextVar[CallContext | None] = ContextVar("redline_call_context", default=None)


def parse_kind(text: str) -> ContextKind:
    try:
        return ContextKind(text)
    except ValueError:
        import difflib

        names = [k.value for k in ContextKind]
        close = difflib.get_close_matches(text, names, n=1)
        hint = f"; did you mean `{close[0]}`?" if close else f"; expected one of {', '.join(names)}"
        raise ValueError(f"unknown context `{text}`{hint}") from None


def current() -> CallContext:
    """The context of the running task or thread; interactive by default."""
    return _current.get() or CallContext()


def set_context(
    kind: ContextKind | str = ContextKind.INTERACTIVE, session: str = DEFAULT_SESSION
) -> Token[CallContext | None]:
    """Set the context for this task; pass the token to `reset_context` afterwards."""
    return _current.set(CallContext(parse_kind(str(kind)), session or DEFAULT_SESSION))


def reset_context(token: Token[CallContext | None]) -> None:
    _current.reset(token)


class use_context:
    """Set the context for a `with` block (a class, not `contextlib`: a hook's
    start does not load `contextlib` for this)."""

    def __init__(
        self, kind: ContextKind | str = ContextKind.INTERACTIVE, session: str = DEFAULT_SESSION
    ) -> None:
        self._kind, self._session = kind, session
        self._token: Token[CallContext | None] | None = None

    def __enter__(self) -> CallContext:
        self._token = set_context(self._kind, self._session)
        return current()

    def __exit__(self, *exc_info: object) -> None:
        if self._token is not None:
            reset_context(self._token)
            self._token = None


def resolve(kind: str | None = None, session: str | None = None) -> CallContext:
    """The current context, with what a call names overriding it."""
    base = current()
    return CallContext(
        parse_kind(kind) if kind is not None else base.kind,
        session if session else base.session,
    )
