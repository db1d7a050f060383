"""A policy file is validated with file:line errors and "did you mean" (F-GATE-4)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from redline.decision import Verdict
from redline.policy.load import Issue, PolicyError, default_policy_path, load_policy, parse_policy
from redline.policy.model import Match, Policy


def issues(text: str) -> list[tuple[int, str, str]]:
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, "p.yaml")
    return [(i.line, i.message, i.help) for i in caught.value.issues]


def test_the_shipped_policy_loads_and_passes_its_examples() -> None:
    policy = load_policy(default_policy_path())
    assert (policy.default, policy.approval_port, [r.id for r in policy.rules]) == (
        Verdict.ALLOW,
        8787,
        ["hard-lines", "flagged"],
    )
    assert policy.ask_becomes("cron", True) is Verdict.DENY
    assert policy.warnings == ()


def test_a_small_policy() -> None:
    policy = parse_policy(
        "version: 1\ndefault: ask\nunknown_tool: deny\n"
        "custom_tools: [deploy_site]\n"
        "approval: {port: 9000, socket: /run/redline.sock}\n"
        "hermes_home: /srv/hermes\n"
        "rules:\n"
        "  - id: sites\n    verdict: allow\n    match:\n      tool: deploy_site\n"
        "      host: [Example.COM]\n    reason: sites are fine\n",
        "p.yaml",
    )
    assert policy == Policy(
        default=Verdict.ASK,
        unknown_tool=Verdict.DENY,
        rules=policy.rules,
        approval_port=9000,
        approval_socket="/run/redline.sock",
        hermes_home="/srv/hermes",
        custom_tools=("deploy_site",),
        source="p.yaml",
    )
    rule = policy.rules[0]
    assert (rule.id, rule.verdict, rule.match, rule.reason, rule.line) == (
        "sites",
        Verdict.ALLOW,
        Match(tool=("deploy_site",), host=("example.com",)),
        "sites are fine",
        8,
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "version: 1\ndefualt: allow\n",
            [(2, "unknown key `defualt` in the policy", "did you mean `default`?")],
        ),
        (
            "version: 1\ndefault: alow\n",
            [
                (
                    2,
                    "`default` must be `allow`, `ask` or `deny`, not `alow`",
                    "did you mean `allow`?",
                )
            ],
        ),
        (
            "version: 1\nrules:\n  - id: a\n    verdict: ask\n    match: {tool: Bsh}\n",
            [(5, "unknown tool `Bsh`", "did you mean `Bash`?")],
        ),
        (
            "version: 1\nrules:\n  - id: a\n    verdict: ask\n    match: {rule: vcs.push-forse}\n",
            [(5, "unknown rule id `vcs.push-forse`", "did you mean `vcs.push-force`?")],
        ),
        (
            "version: 1\nrules:\n  - id: a\n    verdict: ask\n    match: {kind: rn}\n",
            [(5, "unknown action kind `rn`", "did you mean `run`?")],
        ),
        (
            "version: 1\nrules:\n  - id: a\n    verdict: ask\n    match: {context: cronn}\n",
            [(5, "unknown context `cronn`", "did you mean `cron`?")],
        ),
        (
            "version: 1\nrules:\n  - id: a\n    verdit: ask\n",
            [
                (3, "rule `a` has no `verdict`", "add `verdict:` with `allow`, `ask` or `deny`"),
                (4, "unknown key `verdit` in rule `a`", "did you mean `verdict`?"),
            ],
        ),
        (
            "version: 1\nrules:\n  - id: a\n    verdict: ask\n    match: {path: src/**}\n",
            [
                (
                    5,
                    "path pattern `src/**` is relative",
                    "start path patterns with `/`, `~/` or `**/`",
                )
            ],
        ),
        (
            "version: 1\ndefault: allow\ndefault: deny\n",
            [
                (
                    3,
                    "`default` is given twice in the policy",
                    "keep one `default` (the first is on line 2)",
                )
            ],
        ),
        (
            "version: 1\nrules:\n  - {id: a, verdict: ask}\n  - {id: a, verdict: deny}\n",
            [(4, "rule id `a` is used twice", "rename one (the other is on line 3)")],
        ),
        ("version: 2\n", [(1, "unsupported policy version `2`", "use `version: 1`")]),
        ("default: allow\n", [(1, "the policy has no `version`", "add `version: 1` at the top")]),
        (
            "version: 1\nrules: [\n",
            [
                (
                    3,
                    "invalid yaml: did not find expected node content",
                    "fix the yaml syntax on or just before this line",
                )
            ],
        ),
        ("", [(1, "the policy file is empty", "start from the packaged default policy")]),
        (
            "version: 1\napproval: {port: 70000}\n",
            [
                (
                    2,
                    "`approval.port` must be a port number, not `70000`",
                    "use a number from 1 to 65535",
                )
            ],
        ),
        (
            "version: 1\ncontexts: {cron: {ask: allow}}\n",
            [
                (
                    2,
                    "an ask may become `deny` or stay `ask`, never `allow`",
                    "use `ask: deny` or `ask: ask`",
                )
            ],
        ),
        (
            "version: 1\nrules:\n  - id: a\n    verdict: ask\n"
            "    examples:\n      - {tool: Bash}\n",
            [
                (
                    6,
                    "an example of rule `a` has no `expect`",
                    "give each example a `tool`, its `args` and the `expect`ed verdict",
                )
            ],
        ),
    ],
)
def test_errors_name_the_line_and_the_repair(
    text: str, expected: list[tuple[int, str, str]]
) -> None:
    assert issues(text) == expected


def test_every_problem_is_reported_at_once() -> None:
    found = issues(
        "version: 1\ndefault: alow\nrules:\n  - {id: a, verdict: nope, match: {tool: Bsh}}\n"
    )
    assert [line for line, _, _ in found] == [2, 4, 4]


def test_an_error_renders_as_one_line_and_a_help() -> None:
    error = PolicyError("p.yaml", [Issue(3, "unknown key `x` in the policy", "did you mean `y`?")])
    assert str(error) == "p.yaml:3: error: unknown key `x` in the policy\n  help: did you mean `y`?"


def test_allowing_hard_lines_is_a_warning() -> None:
    policy = parse_policy(
        "version: 1\nrules:\n  - {id: yolo, verdict: allow, match: {severity: hardline}}\n"
    )
    assert policy.warnings == (
        (
            3,
            "rule `yolo` allows hard lines or never-run kinds, which no policy can lift",
            "narrow `match` to the rules you mean to allow",
        ),
    )


def test_failing_examples_stop_the_policy_from_loading(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(
        "version: 1\nrules:\n  - id: a\n    verdict: ask\n    match: {tool: Bash}\n"
        "    examples:\n      - {tool: Read, args: {file_path: /x}, expect: ask}\n"
    )
    with pytest.raises(PolicyError) as caught:
        load_policy(path)
    assert str(caught.value) == (
        f"{path}:7: error: example for rule `a` expects ask, but the policy gives allow\n"
        "  help: the policy said: no rule matched"
    )
    assert load_policy(path, check_examples=False).rules[0].id == "a"


def test_an_unreadable_file_names_the_repair(tmp_path: Path) -> None:
    with pytest.raises(PolicyError) as caught:
        load_policy(tmp_path / "missing.yaml")
    assert str(caught.value) == (
        f"{tmp_path / 'missing.yaml'}: error: cannot read the policy file: No such file or "
        "directory\n  help: check the path given with `--policy` or `$REDLINE_POLICY`"
    )


def test_a_compiled_policy_is_cached_and_reused(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = load_policy(default_policy_path(), cache_dir=cache)
    (compiled,) = cache.glob("policy-*.json")
    assert load_policy(default_policy_path(), cache_dir=cache) == first
    compiled.write_text("{not json")
    assert load_policy(default_policy_path(), cache_dir=cache) == first  # a bad cache is rebuilt


def test_the_hot_path_never_imports_yaml_or_pydantic(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_policy(default_policy_path(), cache_dir=cache)
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from redline.gatekeeper import Gate\n"
        "from redline.gate.actions import ToolCall\n"
        f"gate = Gate(home='/home/me', redline_home={str(tmp_path)!r}, cache_dir={str(cache)!r})\n"
        "gate.check(ToolCall('Read', {'file_path': '/srv/a'}, cwd='/srv'))\n"
        "print(sorted(m for m in ('yaml', 'pydantic', 'filelock') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_record_only_policy_loads_and_passes_its_examples() -> None:
    path = Path(default_policy_path()).with_name("record_only.yaml")
    policy = load_policy(path)
    assert [r.id for r in policy.rules] == ["record-only"]
