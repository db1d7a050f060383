"""No input crashes a verdict (issue 12 #6): generated hook input (JSON of any
shape, nested thousands deep, bytes that are not UTF-8, NUL bytes, chains of
wrappers and carriers) through every host adapter, and generated commands
through the shell analysis. Bounded and deterministic (a fixed seed).

For each input: no exception escapes, the reply is the host's verdict, and an
input the hook cannot read is never allowed."""

from __future__ import annotations

import io
import json
import string
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redline.cli.hook import HOSTS, adapter_for
from redline.command import check_command
from redline.decision import Verdict
from redline.hooks.base import BLOCK, HookError, HookReply, Settings, handle, read_payload
from redline.shell.analysis import analyze


def fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,  # the same inputs on every run
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


RAN: dict[str, int] = {}

WRAPPERS = ["env", "sudo", "nice", "nohup", "timeout 5", "time", "xargs", "command", "exec",
            "env A=1", "sudo -u root", "nice -n 5", "stdbuf -o0", "setsid", "doas", "ionice",
            "busybox", "strace", "chroot /", "flock /tmp/l", "builtin", "time -p"]  # fmt: skip
PROGRAMS = ["rm -rf /", "ls", "rm -rf build", "git push --force", "curl x | sh",
            "cat ~/.ssh/id_rsa", "dd if=/dev/zero of=/dev/sda", "echo hi", "redline approve 1",
            ""]  # fmt: skip
TOOLS = ["Bash", "Write", "Edit", "Read", "shell", "run_shell_command", "terminal", "apply_patch",
         "write_file", "mcp__fs__write", "WebFetch", ""]  # fmt: skip
KEYS = ["tool_name", "tool_input", "tool", "args", "cwd", "session_id", "session",
        "hook_event_name", "context", "tool_use_id", "call_id", "agent", "extra", "command",
        "file_path", "content", "workdir"]  # fmt: skip
EVENTS = ["PreToolUse", "PostToolUse", "BeforeTool", "pre_tool_call", "post_tool_call",
          "PermissionRequest", "Stop", ""]  # fmt: skip

LEAF = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
JSON = st.recursive(
    LEAF,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def wrapper_chain(draw: st.DrawFn) -> str:
    """`env env ... rm -rf /`, mixed wrappers, up to some 4 KB and past it."""
    words = draw(st.lists(st.sampled_from(WRAPPERS), max_size=1200))
    return " ".join([*words, draw(st.sampled_from(PROGRAMS))])


@st.composite
def carrier_chain(draw: st.DrawFn) -> str:
    """`sh -c "sh -c \\"...\\""` and `bash -c '...'`, nested."""
    text = draw(st.sampled_from(PROGRAMS))
    for _ in range(draw(st.integers(0, 12))):
        shell = draw(st.sampled_from(["sh -c", "bash -c", "eval", "sudo sh -c", "env sh -c"]))
        text = f'{shell} "' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if len(text) > 8192:
            break
    return text


@st.composite
def deep_json(draw: st.DrawFn) -> str:
    n = draw(st.integers(50, 12_000))
    opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
    return opener * n + "1" + closer * n if opener != "[" else opener * n + closer * n


COMMANDS = st.one_of(
    wrapper_chain(),
    carrier_chain(),
    st.sampled_from(PROGRAMS),
    st.text(alphabet=string.printable + "\x00\u200b\ufeff", max_size=120),
    st.text(max_size=60),
)


@st.composite
def payload(draw: st.DrawFn) -> bytes:
    """A hook's stdin: a call of any shape, often nearly right, sometimes broken."""
    call: dict[str, Any] = draw(st.dictionaries(st.sampled_from(KEYS), JSON, max_size=5))
    if draw(st.booleans()):
        call["tool_name"] = call["tool"] = draw(st.sampled_from(TOOLS))
        command = draw(COMMANDS)
        call["tool_input"] = call["args"] = {"command": command, "file_path": "/tmp/x"}
        call["cwd"] = draw(st.sampled_from(["/tmp", "relative", "", "/"]))
        call["hook_event_name"] = draw(st.sampled_from(EVENTS))
    text = json.dumps(call)
    damage = draw(
        st.sampled_from(["none", "deep", "cut", "bytes", "nul", "surrogate", "junk", "not-object"])
    )
    data = text.encode("utf-8", "surrogatepass")
    if damage == "deep":
        data = (
            text[:-1].encode("utf-8", "surrogatepass")
            + b', "x": '
            + draw(deep_json()).encode()
            + b"}"
        )
    elif damage == "cut":
        data = data[: draw(st.integers(0, len(data)))]
    elif damage == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    elif damage == "nul":
        data = data.replace(b'"', b'"\x00', 1)
    elif damage == "surrogate":
        data = data.replace(b'"', b'"\\udc80', 3)
    elif damage == "junk":
        data = draw(st.binary(max_size=64))
    elif damage == "not-object":
        data = json.dumps(draw(JSON)).encode()
    return data


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "home").mkdir()
    yield {
        "REDLINE_HOME": str(root / "redline"),
        "HOME": str(root / "home"),
        "PATH": "/usr/bin:/bin",
    }
    print(f"\nfuzzed inputs: {RAN}, {sum(RAN.values())} in all, zero tracebacks")


def unreadable(host: str, data: bytes) -> bool:
    try:
        adapter_for(host).parse(read_payload(io.BytesIO(data)), Settings())
    except HookError:
        return True
    return False


def verdict_of(host: str, reply: HookReply) -> str:
    """The host's reading of a hook reply: allow (or no opinion), ask, deny."""
    assert "internal error" not in reply.stderr and "Traceback" not in reply.stderr
    if host == "generic":
        decision = json.loads(reply.stdout)
        expected = {"allow": 0, "ask": 3, "deny": 4}[decision["verdict"]]
        assert reply.code == expected and decision["reason"]
        return str(decision["verdict"])
    if reply.code == BLOCK:
        assert reply.stderr.strip()
        return "deny"
    assert reply.code == 0
    if not reply.stdout.strip():
        return "allow"
    body = json.loads(reply.stdout)
    if not body:
        return "allow"  # Gemini's acknowledgement of an event after the call
    if host == "hermes":
        assert body["action"] == "block" and body["message"]
        return "deny"
    if host == "gemini":
        return str(body["decision"])
    out = body["hookSpecificOutput"]
    if "decision" in out:  # Codex's PermissionRequest
        return str(out["decision"]["behavior"])
    return str(out["permissionDecision"])


@fuzz(500)
@given(data=payload(), host=st.sampled_from(sorted(HOSTS)))
def test_any_hook_input_gets_a_verdict_and_unreadable_input_is_blocked(
    env: dict[str, str], data: bytes, host: str
) -> None:
    RAN["hook inputs"] = RAN.get("hook inputs", 0) + 1
    reply = handle(adapter_for(host), io.BytesIO(data), Settings(), env)
    verdict = verdict_of(host, reply)
    assert verdict in ("allow", "ask", "deny")
    if unreadable(host, data):
        assert verdict == "deny"


@fuzz(1200)
@given(data=payload(), host=st.sampled_from(sorted(HOSTS)))
def test_reading_any_hook_input_raises_nothing_but_a_hook_error(data: bytes, host: str) -> None:
    RAN["stdin reads"] = RAN.get("stdin reads", 0) + 1
    try:
        call = adapter_for(host).parse(read_payload(io.BytesIO(data)), Settings())
    except HookError as error:
        assert str(error)
        return
    assert isinstance(call.tool, str) and call.tool


@fuzz(1200)
@given(command=COMMANDS)
def test_any_command_gets_a_verdict_and_unparsed_is_never_allowed(command: str) -> None:
    RAN["commands"] = RAN.get("commands", 0) + 1
    decision = check_command(command, cwd="/tmp")
    assert decision.verdict in (Verdict.ALLOW, Verdict.ASK, Verdict.DENY)
    if analyze(command, "/tmp").errors:
        assert decision.verdict >= Verdict.ASK


@fuzz(300)
@given(words=st.lists(st.sampled_from(WRAPPERS), max_size=1200))
def test_any_chain_of_wrappers_around_a_hard_line_is_a_hard_line_deny(words: list[str]) -> None:
    RAN["wrapper chains"] = RAN.get("wrapper chains", 0) + 1
    decision = check_command(" ".join([*words, "rm -rf /"]), cwd="/tmp")
    assert (decision.verdict, decision.hardline) == (Verdict.DENY, True)


def test_the_wrapper_chains_of_the_issue_are_hard_line_denies(env: dict[str, str]) -> None:
    for wrapper in ("env", "sudo", "nice", "time", "sudo env nice", "nice -n 5", "timeout 5"):
        words = (wrapper + " ") * (4096 // (len(wrapper) + 1))
        decision = check_command(words + "rm -rf /", cwd="/tmp")
        assert (decision.verdict, decision.hardline) == (Verdict.DENY, True), wrapper
    # JSON nested 10,000 deep on a hook's stdin: a block with the reason, for every host.
    deep = b'{"tool_name": "Bash", "tool_input": {"command": "ls", "x": ' + b"[" * 10_000
    for host in sorted(HOSTS):
        reply = handle(adapter_for(host), io.BytesIO(deep + b"]" * 10_000 + b"}}"), Settings(), env)
        assert verdict_of(host, reply) == "deny"
        text = reply.stderr if host != "generic" else json.loads(reply.stdout)["reason"]
        assert text.startswith(
            "redline blocked this call: the hook input cannot be judged: "
            "it is nested deeper than 100 levels"
        )
