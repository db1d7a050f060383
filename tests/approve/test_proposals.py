"""Proposals: the agent (`redline propose`, a real process) only proposes;
the service shows the owner the exact words and acts only on approval."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from botapi import OWNER, BotApi, edited, pair_owner, request_message
from servicekit import Env, ServiceProcess, eventually, outcomes

from redline.approve.wire import exchange

DIGEST = "Ana is travelling until Sunday; replies may be slow.\nNo meetings on Friday."


class Proposal:
    def __init__(self, env: Env, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "redline", "propose", *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def result(self) -> tuple[int, dict[str, Any]]:
        out, err = self.proc.communicate(timeout=300)
        assert out, err
        return self.proc.returncode, json.loads(out)


def shared(service: ServiceProcess) -> dict[str, Any]:
    status, state = exchange(service.paths.hook_socket, "GET", "/v1/shared")
    assert status == 200
    result: dict[str, Any] = state
    return result


def test_a_digest_is_shared_in_the_exact_words_and_can_be_revoked(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    service = make_service()
    proposal = Proposal(env, "share-digest", "--text", DIGEST, "--session", "s1")
    [held] = service.wait_pending(1)
    assert (held["kind"], held["shown"]) == (
        "proposal",
        f"Share this digest (exactly these words):\n\n{DIGEST}",
    )
    assert shared(service)["digests"] == []
    assert service.owner("POST", f"/v1/held/{held['id']}/approve", {})[0] == 200
    code, decision = proposal.result()
    assert (code, decision["code"]) == (0, "approved")
    assert "the service carried it out" in decision["reason"]
    [digest] = shared(service)["digests"]
    assert digest["text"] == DIGEST

    revoke = Proposal(env, "revoke-digest", "--digest", digest["id"])
    [held] = service.wait_pending(1)
    assert held["shown"].endswith(DIGEST)
    service.owner("POST", f"/v1/held/{held['id']}/approve", {})
    assert revoke.result()[0] == 0
    assert shared(service)["digests"] == []
    assert [o.outcome for o in outcomes(env)] == ["approved", "approved"]


def test_a_question_takes_one_answer(env: Env, make_service: Callable[..., ServiceProcess]) -> None:
    service = make_service()
    question = {"id": "q-2026-49", "text": "Should the village buy a second bread oven?"}
    assert service.owner("POST", "/v1/questions", question)[0] == 200
    read = subprocess.run(
        [sys.executable, "-m", "redline", "propose", "question"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert json.loads(read.stdout)["question"]["text"] == question["text"]
    first = Proposal(env, "vote", "--question", "q-2026-49", "--answer", "yes")
    second = Proposal(env, "vote", "--question", "q-2026-49", "--answer", "no")
    rows = service.wait_pending(2)
    by_answer = {row["shown"].rsplit("Answer: ", 1)[1]: row["id"] for row in rows}
    assert service.owner("POST", f"/v1/held/{by_answer['yes']}/approve", {})[0] == 200
    status, reply = service.owner("POST", f"/v1/held/{by_answer['no']}/approve", {})
    assert (status, reply) == (409, {"error": "question `q-2026-49` already has its answer"})
    service.owner("POST", f"/v1/held/{by_answer['no']}/reject", {"reason": "answered"})
    assert first.result()[1]["code"] == "approved"
    assert second.result()[1]["code"] == "rejected"
    code, late = Proposal(env, "vote", "--question", "q-2026-49", "--answer", "no").result()
    assert (code, late["code"]) == (4, "gate-refused")
    assert "not the open question" in late["reason"]


def test_a_rejected_intention_is_not_published(
    env: Env, make_service: Callable[..., ServiceProcess]
) -> None:
    service = make_service()
    proposal = Proposal(env, "intention", "--text", "Ana wants to learn the cello")
    [held] = service.wait_pending(1)
    service.owner("POST", f"/v1/held/{held['id']}/reject", {"reason": "private"})
    code, decision = proposal.result()
    assert (code, decision["code"]) == (4, "rejected")
    assert "private" in decision["reason"]
    assert shared(service)["intentions"] == []


def test_a_yes_typed_in_chat_is_not_an_approval(
    env: Env, bot: BotApi, telegram: Callable[..., ServiceProcess]
) -> None:
    service = telegram()
    pair_owner(service, bot)
    proposal = Proposal(env, "intention", "--text", "Ana wants to learn the cello")
    message = request_message(bot)
    assert (
        "Publish this intention (exactly these words):\n\nAna wants to learn the cello"
        in (message["text"])
    )
    [[approve], [reject]] = message["reply_markup"]["inline_keyboard"]
    assert (approve["text"], reject["text"]) == ("Approve", "Reject")
    bot.say(OWNER, "yes")
    eventually(lambda: any("approves nothing" in m["text"] for m in bot.sent_to(OWNER)))
    assert service.pending()[0]["state"] == "pending"
    assert shared(service)["intentions"] == []
    bot.tap(OWNER, message["message_id"], approve["callback_data"])
    assert proposal.result()[1]["code"] == "approved"
    [published] = shared(service)["intentions"]
    assert published["text"] == "Ana wants to learn the cello"
    edited(bot, message["message_id"], "Approved")
