"""The web page: log in with a code from `redline pair web`, watch a held call
appear, approve it, and see the waiting hook get allow (in Debian's chromium
driven by Playwright); and the login, cookie and CSRF rules over plain HTTP."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from servicekit import (
    Env,
    HookProcess,
    ServiceProcess,
    eventually,
    hook_payload,
    outcomes,
    run_hook,
)

from redline.approve.install_secrets import HOOK_TOKEN_HEADER, read_hook_token

CHROMIUM = "/usr/bin/chromium"
ASKED = "git push --force origin main"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def web(make_service: Callable[..., ServiceProcess]) -> tuple[ServiceProcess, str]:
    port = free_port()
    service = make_service("--http", f"127.0.0.1:{port}")
    return service, f"http://127.0.0.1:{port}"


def web_code(service: ServiceProcess) -> str:
    status, reply = service.owner("POST", "/v1/pair/web")
    assert status == 200
    code: str = reply["code"]
    return code


@pytest.fixture
def client(web: tuple[ServiceProcess, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web[1], timeout=60, follow_redirects=False) as http:
        yield http


def log_in(service: ServiceProcess, http: httpx.Client) -> str:
    reply = http.post("/login", data={"code": web_code(service)})
    assert (reply.status_code, reply.headers["location"]) == (303, "/")
    csrf: str = http.get("/api/session").json()["csrf"]
    return csrf


def test_the_session_cookie_is_httponly_and_samesite(
    web: tuple[ServiceProcess, str], client: httpx.Client
) -> None:
    reply = client.post("/login", data={"code": web_code(web[0])})
    cookie = reply.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert "default-src 'none'" in reply.headers["content-security-policy"]


def test_only_loopback_host_names_are_served(
    web: tuple[ServiceProcess, str], client: httpx.Client
) -> None:
    token = read_hook_token(web[0].paths) or ""
    assert client.get("/login", headers={"host": "evil.example"}).status_code == 400
    rebound = {"host": "rebound.example:80", HOOK_TOKEN_HEADER: token}
    assert client.get("/v1/health", headers=rebound).status_code == 400
    assert client.get("/login", headers={"host": "localhost"}).status_code == 200


def test_nothing_without_logging_in(client: httpx.Client) -> None:
    assert client.get("/").headers["location"] == "/login"
    for path in ("/api/pending", "/api/history", "/api/rules", "/api/session"):
        assert client.get(path).status_code == 401
    assert client.post("/api/held/x/approve", json={}).status_code == 403


def test_changes_need_the_csrf_token_and_the_same_origin(
    env: Env, web: tuple[ServiceProcess, str], client: httpx.Client
) -> None:
    service, base = web
    csrf = log_in(service, client)
    hook = HookProcess(env, hook_payload(ASKED))
    [held] = service.wait_pending(1)
    path = f"/api/held/{held['id']}/approve"
    assert client.post(path, json={}).status_code == 403
    assert client.post(path, json={}, headers={"x-csrf-token": "forged"}).status_code == 403
    evil = {"x-csrf-token": csrf, "origin": "http://evil.example"}
    assert client.post(path, json={}, headers=evil).status_code == 403
    assert service.pending()[0]["state"] == "pending"
    ok = client.post(path, json={"scope": "once"}, headers={"x-csrf-token": csrf, "origin": base})
    assert (ok.status_code, ok.json()["state"], ok.json()["channel"]) == (200, "approved", "web")
    assert hook.result()[1]["code"] == "approved"


def test_history_filters_and_rules(
    env: Env, web: tuple[ServiceProcess, str], client: httpx.Client
) -> None:
    service, _ = web
    log_in(service, client)
    hook = HookProcess(env, hook_payload(ASKED, session="s9"))
    [held] = service.wait_pending(1)
    service.owner("POST", f"/v1/held/{held['id']}/reject", {"reason": "no"})
    hook.result()
    rows = client.get("/api/history", params={"session": "s9", "kind": "outcome"}).json()
    assert [(r["outcome"], r["reason"]) for r in rows["history"]] == [("rejected", "no")]
    rows = client.get("/api/history", params={"rule": "vcs.push-force"}).json()["history"]
    assert [r["verdict"] for r in rows] == ["ask"]
    rules = {r["id"]: r for r in client.get("/api/rules").json()["rules"]}
    assert rules["vcs.push-force"]["must_match"] and rules["vcs.push-force"]["description"]


def test_login_locks_out_after_wrong_codes(
    web: tuple[ServiceProcess, str], client: httpx.Client
) -> None:
    code = web_code(web[0])
    problems = [
        client.post("/login", data={"code": "AAAA-AAAA"}).headers["location"] for _ in range(5)
    ]
    assert problems == ["/login?problem=wrong-code"] * 5
    locked = client.post("/login", data={"code": code}).headers["location"]
    assert locked == "/login?problem=locked-out"
    assert client.get("/api/session").status_code == 401


def test_the_log_head_is_on_the_page(
    env: Env, web: tuple[ServiceProcess, str], client: httpx.Client
) -> None:
    from redline.audit.recorder import open_log

    service, _ = web
    log_in(service, client)
    assert client.get("/api/head").json() == {"head": None}
    run_hook(env, hook_payload("ls /srv"))
    store = open_log(None, environ=env)
    try:
        head = store.head()
    finally:
        store.close()
    assert head is not None
    assert client.get("/api/head").json() == {
        "head": {"seq": head.seq, "hash": head.hash, "head": f"{head.seq}:{head.hash}"}
    }
    assert httpx.get(f"{web[1]}/api/head").status_code == 401


def need_chromium() -> None:
    if not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing and CI is set (`.ci/run` installs it)")
        pytest.skip("Debian's chromium is not installed")


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Debian's chromium, driven by Playwright (a `Browser`)."""
    need_chromium()
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=90_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-dev-shm-usage",
            ],
        )
        try:
            yield browser
        finally:
            browser.close()


def test_approve_from_the_web_page_in_chromium(env: Env, web: tuple[ServiceProcess, str]) -> None:
    from playwright.sync_api import expect

    service, base = web
    with chromium() as browser:
        page = browser.new_page()
        page.set_default_timeout(90_000)
        page.goto(base + "/")
        expect(page).to_have_url(base + "/login")
        page.get_by_test_id("code").fill(web_code(service))
        page.get_by_test_id("login").click()
        expect(page.get_by_test_id("count")).to_have_text("0")

        hook = HookProcess(env, hook_payload(ASKED, session="web-1"))
        card = page.get_by_test_id("held")
        expect(card).to_have_count(1)
        expect(card.get_by_test_id("command")).to_have_text(ASKED)
        expect(card.get_by_test_id("cwd")).to_have_text("/work/project")
        expect(card).to_contain_text("vcs.push-force")
        card.get_by_test_id("scope").select_option("session")
        card.get_by_test_id("approve").click()

        code, decision, _ = hook.result()
        assert (code, decision["verdict"], decision["code"]) == (0, "allow", "approved")
        expect(page.get_by_test_id("count")).to_have_text("0")
        expect(page.locator("#rows")).to_contain_text("approved owner web")
    [outcome] = eventually(lambda: outcomes(env))
    assert (outcome.outcome, outcome.channel) == ("approved", "web")


PHONE = {"width": 390, "height": 844}


def test_the_page_is_readable_on_a_phone(
    env: Env, web: tuple[ServiceProcess, str], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    need_chromium()  # before any hook is started: a skip would leave it running
    service, base = web
    long_command = "echo " + "x" * 300 + " && git push --force origin main"
    workdir = "/work/" + "/".join(["a-rather-long-directory-name"] * 6)
    rejected = HookProcess(env, hook_payload(long_command, session="phone", cwd=workdir))
    [held] = service.wait_pending(1)
    service.owner("POST", f"/v1/held/{held['id']}/reject", {"reason": "y" * 200})
    rejected.result()
    run_hook(env, hook_payload("cat " + "/very/long/path" * 30, session="phone"))
    hook = HookProcess(env, hook_payload(long_command, session="phone-2", cwd=workdir))
    service.wait_pending(1)
    with chromium() as browser:
        page = browser.new_page(viewport=PHONE)
        page.set_default_timeout(90_000)
        page.goto(base + "/login")
        expect(page.locator('meta[name="viewport"]')).to_have_count(1)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.get_by_test_id("code").fill(web_code(service))
        page.get_by_test_id("login").click()
        card = page.get_by_test_id("held")
        expect(card).to_have_count(1)
        expect(card.get_by_test_id("cwd")).to_have_text(workdir)
        expect(page.locator("#rows tr")).to_have_count(4)
        expect(page.get_by_test_id("head")).to_contain_text(":")
        width = page.evaluate(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
        )
        page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
        assert width <= PHONE["width"]
        # Nothing sticks out of the screen, and the history's cells are laid out as lines.
        widest = page.evaluate(
            "Math.max(...[...document.querySelectorAll('main *')]"
            ".map(el => el.getBoundingClientRect().right))"
        )
        assert widest <= PHONE["width"]
        assert page.locator(".history thead").is_hidden()
        card.get_by_test_id("approve").click()
        assert hook.result()[1]["code"] == "approved"
    assert (tmp_path / "phone.png").stat().st_size > 10_000
