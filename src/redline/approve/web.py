"""The web page (F-APPROVE-4), on loopback HTTP beside the hooks' routes.

Login takes a one-time code from `redline pair web` (with the pairing's
expiry, rate limit and lockout); the session lives in an HttpOnly,
SameSite=Strict cookie, and every change also needs the session's CSRF
token in a header. Logging in and every change need a same-origin `Origin`
and `Sec-Fetch-Site` when the browser sends them (`_same_origin`). The page
lists held calls (a long poll keeps it live), answers them with a scope or a
reason, shows the log's history with filters, each rule's description and
examples, and the log's head (to keep off the machine, for `redline log
verify --head`). The page's script fills everything in with `textContent`: a
command is never markup.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from redline.approve import webpage
from redline.approve.pending import State
from redline.approve.service import AnswerError, Service
from redline.audit.store import Query
from redline.pairing import Result

COOKIE = "redline_session"
SESSION_S = 12 * 3600.0
SCHEMA = (
    """CREATE TABLE IF NOT EXISTS web_sessions (
        digest TEXT PRIMARY KEY,
        csrf TEXT NOT NULL,
        expires REAL NOT NULL
    )""",
)
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Sessions:
    def __init__(self, service: Service) -> None:
        self.db = service.db
        self.db.script(SCHEMA)

    def create(self) -> tuple[str, str]:
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        self.db.execute("DELETE FROM web_sessions WHERE expires <= ?", (time.time(),))
        self.db.execute(
            "INSERT INTO web_sessions (digest, csrf, expires) VALUES (?, ?, ?)",
            (_digest(token), csrf, time.time() + SESSION_S),
        )
        return token, csrf

    def csrf(self, request: Request) -> str | None:
        """The session's CSRF token if the request carries a live session."""
        token = request.cookies.get(COOKIE)
        if not token:
            return None
        rows = self.db.fetch(
            "SELECT csrf FROM web_sessions WHERE digest = ? AND expires > ?",
            (_digest(token), time.time()),
        )
        return str(rows[0][0]) if rows else None

    def end(self, request: Request) -> None:
        token = request.cookies.get(COOKIE)
        if token:
            self.db.execute("DELETE FROM web_sessions WHERE digest = ?", (_digest(token),))


def _headers(response: Response) -> Response:
    response.headers.update(SECURITY_HEADERS)
    return response


def _same_origin(request: Request) -> bool:
    """Whether a change (log in, answer, log out) may come from this request:
    a browser names where it comes from on every POST (`Origin`, and fetch
    metadata in `Sec-Fetch-Site`), and both must say this very page. Another
    origin, `null` (a sandboxed or opaque page) or another site is refused;
    a request with neither header comes from no browser at all."""
    origins = request.headers.getlist("origin")
    sites = request.headers.getlist("sec-fetch-site")
    if len(origins) > 1 or len(sites) > 1 or sites not in ([], ["same-origin"]):
        return False
    host = request.headers.get("host", "")
    return not origins or origins[0] == f"http://{host}"


def _history_query(request: Request) -> Query:
    params = request.query_params
    try:
        limit = max(1, min(int(params.get("limit", "100")), 1000))
    except ValueError:
        limit = 100
    return Query(
        session=params.get("session") or None,
        tool=params.get("tool") or None,
        verdict=params.get("verdict") or None,
        rule=params.get("rule") or None,
        kind=params.get("kind") or None,
        limit=limit,
        newest_first=True,
    )


def rules_json() -> list[dict[str, Any]]:
    from redline.rules.catalog import CATALOG

    return [
        {
            "id": rule.id,
            "category": rule.category,
            "severity": str(rule.severity),
            "description": rule.description,
            "repair": rule.repair,
            "must_match": list(rule.must_match),
            "must_not_match": list(rule.must_not_match),
        }
        for rule in CATALOG
    ]


def web_routes(service: Service) -> list[BaseRoute]:
    sessions = Sessions(service)

    def denied() -> Response:
        return _headers(JSONResponse({"error": "log in first"}, status_code=401))

    async def index(request: Request) -> Response:
        if sessions.csrf(request) is None:
            return _headers(RedirectResponse("/login", status_code=303))
        return _headers(HTMLResponse(webpage.INDEX))

    async def login_form(request: Request) -> Response:
        return _headers(HTMLResponse(webpage.login(request.query_params.get("problem", ""))))

    async def login(request: Request) -> Response:
        if not _same_origin(request):
            return _headers(Response("cross-origin login refused", status_code=403))
        form = dict(parse_qsl((await request.body()).decode("utf-8", "replace")))
        sender = request.client.host if request.client else "unknown"
        result = service.pairing.redeem("web", sender, form.get("code", ""), remember=False)
        if result is not Result.PAIRED:
            return _headers(RedirectResponse(f"/login?problem={result.value}", status_code=303))
        token, _ = sessions.create()
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(
            COOKIE, token, max_age=int(SESSION_S), httponly=True, samesite="strict", path="/"
        )
        return _headers(response)

    async def logout(request: Request) -> Response:
        if _same_origin(request) and await _checked(request) is not None:
            sessions.end(request)
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return _headers(response)

    async def _checked(request: Request) -> str | None:
        """The session's CSRF token if this change request is allowed."""
        csrf = sessions.csrf(request)
        given = request.headers.get("x-csrf-token", "")
        if csrf is None or not _same_origin(request) or not hmac.compare_digest(csrf, given):
            return None
        return csrf

    async def session_info(request: Request) -> Response:
        csrf = sessions.csrf(request)
        if csrf is None:
            return denied()
        return _headers(JSONResponse({"csrf": csrf}))

    async def pending(request: Request) -> Response:
        if sessions.csrf(request) is None:
            return denied()
        try:
            since = int(request.query_params.get("since", "-1"))
            wait = float(request.query_params.get("wait", "0"))
        except ValueError:
            since, wait = -1, 0.0
        version = await service.changes(since, min(wait, 25.0))
        rows = [service.pending.view(held) for held in service.pending.waiting()]
        return _headers(JSONResponse({"version": version, "pending": rows, "now": time.time()}))

    async def answer(request: Request) -> Response:
        if await _checked(request) is None:
            return _headers(JSONResponse({"error": "bad or missing CSRF token"}, status_code=403))
        try:
            body = await request.json()
            verb = request.path_params["verb"]
            held = await service.answer(
                request.path_params["id"],
                State.APPROVED if verb == "approve" else State.REJECTED,
                by="owner",
                channel="web",
                scope=body.get("scope") if verb == "approve" else None,
                reason=(body.get("reason") or None) if verb == "reject" else None,
            )
        except (ValueError, AttributeError, AnswerError) as err:
            return _headers(JSONResponse({"error": str(err)}, status_code=409))
        return _headers(JSONResponse(held.to_json()))

    async def history(request: Request) -> Response:
        if sessions.csrf(request) is None:
            return denied()
        entries = service.store.query(_history_query(request))
        rows = [{"seq": e.seq, **e.record.to_json()} for e in entries]
        return _headers(JSONResponse({"history": rows}))

    async def head(request: Request) -> Response:
        if sessions.csrf(request) is None:
            return denied()
        current = service.head()
        shown = None if current is None else {**current.to_json(), "head": str(current)}
        return _headers(JSONResponse({"head": shown}))

    async def rules(request: Request) -> Response:
        if sessions.csrf(request) is None:
            return denied()
        return _headers(JSONResponse({"rules": rules_json()}))

    async def script(request: Request) -> Response:
        return _headers(Response(webpage.SCRIPT, media_type="text/javascript"))

    async def style(request: Request) -> Response:
        return _headers(Response(webpage.STYLE, media_type="text/css"))

    return [
        Route("/", index, methods=["GET"]),
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/app.js", script, methods=["GET"]),
        Route("/app.css", style, methods=["GET"]),
        Route("/api/session", session_info, methods=["GET"]),
        Route("/api/pending", pending, methods=["GET"]),
        Route("/api/held/{id}/{verb:str}", answer, methods=["POST"]),
        Route("/api/history", history, methods=["GET"]),
        Route("/api/rules", rules, methods=["GET"]),
        Route("/api/head", head, methods=["GET"]),
    ]
