"""No cross-origin or forged request reaches the queue: on loopback HTTP the
hook routes need the install's hook token and refuse anything a browser
sent; logging in and every change on the web page refuse another origin
(`Origin`, `Sec-Fetch-Site`). Sent to `redline serve --http` with its default
judging worker(s), so both the service and a worker see them."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from servicekit import POLICY, Env, HookProcess, ServiceProcess, hook_payload
from test_web import ASKED, free_port, web_code
from test_websession import PARALLEL, WORKERS, request, serving_worker

from redline.approve.client import decide_via_service
from redline.approve.install_secrets import HOOK_TOKEN_HEADER, read_hook_token
from redline.approve.wire import exchange
from redline.audit.recorder import open_log
from redline.audit.store import Query
from redline.decision import Verdict

Headers = list[tuple[str, str]]
REPEAT = 2  # each forged request twice, in parallel: the service and a worker both see some


def send(port: int, method: str, path: str, body: bytes, headers: Headers) -> int:
    """One request on a fresh connection, headers exactly as listed (repeats kept)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers:
            conn.putheader(name, value)
        conn.putheader("content-length", str(len(body)))
        conn.endheaders(body)
        reply = conn.getresponse()
        reply.read()
        return reply.status
    finally:
        conn.close()


def in_parallel(port: int, attempts: list[tuple[str, str, bytes, Headers]]) -> list[int]:
    with ThreadPoolExecutor(PARALLEL) as pool:
        return list(pool.map(lambda a: send(port, *a), attempts))


def test_forged_and_cross_origin_requests_never_reach_the_queue(
    env: Env, make_service: Callable[..., ServiceProcess], tmp_path: Path
) -> None:
    port = free_port()
    policy = tmp_path / "policy.yaml"
    shutil.copy(POLICY, policy)  # an "always" that got through would write beside it
    service = make_service("--http", f"127.0.0.1:{port}", "--policy", str(policy), *WORKERS)
    token = read_hook_token(service.paths)
    assert token is not None
    page = f"http://127.0.0.1:{port}"
    serving_worker(port, token)
    hook = HookProcess(env, hook_payload(ASKED, session="owner-held"))
    [held] = service.wait_pending(1)

    # -- the hook routes: no token, a wrong one, or a browser's request
    def call(command: str, n: int) -> bytes:
        payload = hook_payload(command, "forged", nonce=f"{n:032x}")
        return json.dumps(payload).encode()

    intention = {"kind": "publish_intention", "args": {"text": "x"}, "session": "forged"}
    proposal = {**intention, "nonce": "0" * 32}
    hook_routes = [
        ("POST", "/v1/decide", call(ASKED, 1)),
        ("POST", "/v1/decide", call("ls /srv", 2)),
        ("POST", "/v1/proposals", json.dumps(proposal).encode()),
        ("GET", f"/v1/held/{held['id']}?wait=0", b""),
        ("GET", "/v1/shared", b""),
        ("GET", "/v1/questions/open", b""),
        ("GET", "/v1/health", b""),
    ]
    right = (HOOK_TOKEN_HEADER, token)
    json_type = ("content-type", "application/json")
    host = ("host", f"127.0.0.1:{port}")
    forged_headers: list[Headers] = [
        [],
        [host],  # two `Host` headers: the token is still asked for
        [(HOOK_TOKEN_HEADER, "")],
        [(HOOK_TOKEN_HEADER, "x" * len(token))],
        [(HOOK_TOKEN_HEADER, token[:-1])],
        [(HOOK_TOKEN_HEADER, token.upper() if token.upper() != token else token.lower())],
        [right, (HOOK_TOKEN_HEADER, "x" * len(token))],
        [right, ("origin", "http://evil.example")],
        [right, ("origin", page)],
        [right, ("origin", "null")],
        [right, ("sec-fetch-site", "cross-site")],
        [right, ("sec-fetch-mode", "no-cors")],
    ]
    hook_attempts = [
        (method, path, body, [host, json_type, *headers])
        for method, path, body in hook_routes
        for headers in forged_headers
    ] * REPEAT
    hook_statuses = in_parallel(port, hook_attempts)

    # The same routes with the token and no browser headers are served.
    # (Not the asked call nor the proposal: they would be held.)
    allowed = json.dumps(hook_payload("ls /srv", "honest", nonce="1" * 32)).encode()
    honest = [("POST", "/v1/decide", allowed, [host, json_type, right])]
    honest += [("GET", p, b, [host, json_type, right]) for m, p, b in hook_routes if m == "GET"]
    assert in_parallel(port, honest) == [200] * len(honest)
    # The Unix hook socket keeps working without a token.
    assert exchange(service.paths.hook_socket, "GET", "/v1/health")[0] == 200

    # -- the web page: log in, answer and log out from another origin
    code = web_code(service)
    cross: list[Headers] = [
        [("origin", "http://evil.example")],
        [("origin", "null")],
        [("origin", f"http://localhost:{port}")],  # another origin, though loopback
        [("sec-fetch-site", "cross-site")],
        [("sec-fetch-site", "same-site")],
        [("origin", page), ("sec-fetch-site", "cross-site")],
        [("origin", page), ("origin", "http://evil.example")],
    ]
    form = ("content-type", "application/x-www-form-urlencoded")
    login_attempts = [
        ("POST", "/login", f"code={code}".encode(), [host, form, *headers]) for headers in cross
    ] * REPEAT
    login_statuses = in_parallel(port, login_attempts)
    # None of them used the code: the owner's own login with it still works.
    cookie, csrf = owner_session(port, code)
    owner = [host, json_type, ("cookie", cookie), ("x-csrf-token", csrf)]
    change_routes = [
        ("POST", f"/api/held/{held['id']}/approve", b'{"scope": "always"}'),
        ("POST", f"/api/held/{held['id']}/reject", b'{"reason": "forged"}'),
        ("POST", "/logout", b""),
    ]
    change_attempts = [
        (method, path, body, [*owner, *headers])
        for method, path, body in change_routes
        for headers in cross
    ] * REPEAT
    change_statuses = in_parallel(port, change_attempts)

    refused_hook = [s for s in hook_statuses if s in (401, 403)]
    refused_web = [s for s in login_statuses + change_statuses if s == 403]
    logout_kept = [s for s in change_statuses if s == 303]  # logout always sends to /login
    total = len(hook_attempts) + len(login_attempts) + len(change_attempts)
    assert (len(refused_hook), len(refused_web) + len(logout_kept)) == (
        len(hook_attempts),
        len(login_attempts) + len(change_attempts),
    )
    assert total == REPEAT * (len(hook_routes) * 12 + 7 + 3 * 7)
    # Nothing was held, answered or logged for them; the owner's session lives.
    assert [(row["id"], row["state"]) for row in service.pending()] == [(held["id"], "pending")]
    assert not (tmp_path / "allowlist.json").exists()
    assert send(port, "GET", "/api/session", b"", [host, ("cookie", cookie)]) == 200
    log = open_log(environ=env)
    try:
        assert log.query(Query(session="forged")) == []
    finally:
        log.close()
    service.owner("POST", f"/v1/held/{held['id']}/reject", {"reason": "done"})
    assert hook.result()[1]["code"] == "rejected"


def owner_session(port: int, code: str) -> tuple[str, str]:
    """The owner logs in with `code` from the page itself, as a browser sends
    it: the cookie and CSRF token."""
    browser = {
        "content-type": "application/x-www-form-urlencoded",
        "origin": f"http://127.0.0.1:{port}",
        "sec-fetch-site": "same-origin",
        "sec-fetch-mode": "navigate",
    }
    status, headers, _ = request(port, "POST", "/login", f"code={code}".encode(), browser)
    assert status == 303
    cookie = headers["set-cookie"].split(";", 1)[0]
    status, _, reply = request(port, "GET", "/api/session", headers={"cookie": cookie})
    assert status == 200
    return cookie, str(json.loads(reply)["csrf"])


def test_the_token_file_is_made_owner_only_at_the_first_start(
    make_service: Callable[..., ServiceProcess],
) -> None:
    service = make_service("--workers", "0")
    path = os.path.join(service.paths.owner_dir, "hook.token")
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_the_hook_client_sends_the_token_on_loopback_http(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    port = free_port()
    service = make_service("--http", f"127.0.0.1:{port}")
    home, address = env["REDLINE_HOME"], f"127.0.0.1:{port}"
    ask = {"cwd": "/work/project", "session": "client", "home": home, "address": address}
    allowed = decide_via_service("Bash", {"command": "ls /srv"}, **ask)  # type: ignore[arg-type]
    assert (allowed.verdict, allowed.code) == (Verdict.ALLOW, None)
    os.unlink(os.path.join(service.paths.owner_dir, "hook.token"))
    refused = decide_via_service("Bash", {"command": "ls /srv"}, **ask)  # type: ignore[arg-type]
    assert (refused.verdict, refused.code) == (Verdict.DENY, "gate-refused")
    assert "hook token" in refused.reason
