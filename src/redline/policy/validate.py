"""Validating a policy's YAML nodes into a `Policy`, collecting every problem
with its line, a help text, and "did you mean" for unknown names."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from redline.decision import Verdict
from redline.gate.actions import ActionKind
from redline.gate.context import ContextKind
from redline.gate.never_run import CATEGORY as NEVER_RUN_CATEGORY
from redline.gate.protected import NeverRunKind
from redline.gate.tools import TOOLS, known_tool
from redline.policy.load import Issue, did_you_mean
from redline.policy.model import CALL_KEYS, HIT_KEYS, Example, Match, Policy, PolicyRule, is_glob
from redline.policy.opinion_settings import TOP_KEYS as OPINION_KEYS
from redline.policy.opinion_settings import read_inbound, read_opinion
from redline.policy.run_settings import TOP_KEYS as RUN_KEYS
from redline.policy.run_settings import read_run_settings
from redline.rules.catalog import BY_ID, CATALOG, resolve

TOP_KEYS = ("version", "description", "default", "unknown_tool", "rules", "contexts",
            "approval", "hermes_home", "custom_tools", *RUN_KEYS, *OPINION_KEYS)  # fmt: skip
RULE_KEYS = ("id", "verdict", "match", "unless", "reason", "repair", "examples")
EXAMPLE_KEYS = ("tool", "args", "expect", "cwd", "context", "code")
APPROVAL_KEYS = ("port", "socket")
CONTEXT_KEYS = ("ask",)
SEVERITIES = ("hardline", "dangerous", "sensitive")
NEVER_RUN_IDS = tuple(f"never-run.{k}" for k in NeverRunKind)
_RULE_ID = re.compile(r"\A[a-z0-9][a-z0-9._-]*\Z")
_VERDICTS = "`allow`, `ask` or `deny`"

Items = dict[str, tuple[yaml.Node, yaml.Node]]


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


class Reader:
    def __init__(self) -> None:
        self.issues: list[Issue] = []
        self.custom_tools: set[str] = set()
        self._constructor = SafeConstructor()

    # -- helpers ----------------------------------------------------------

    def error(self, node: yaml.Node, message: str, help_text: str = "") -> None:
        self.issues.append(Issue(_line(node), message, help_text))

    def warn(self, node: yaml.Node, message: str, help_text: str = "") -> None:
        self.issues.append(Issue(_line(node), message, help_text, warning=True))

    def plain(self, node: yaml.Node) -> Any:
        return self._constructor.construct_object(node, deep=True)

    def mapping(self, node: yaml.Node, where: str, allowed: tuple[str, ...]) -> Items | None:
        if not isinstance(node, yaml.MappingNode):
            self.error(node, f"{where} must be a mapping", f"write {where} as `key: value` lines")
            return None
        items: Items = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                self.error(key_node, f"keys in {where} must be names")
                continue
            if key in items:
                self.error(
                    key_node,
                    f"`{key}` is given twice in {where}",
                    f"keep one `{key}` (the first is on line {_line(items[key][0])})",
                )
                continue
            if key not in allowed:
                hint = did_you_mean(key, allowed) or f"expected one of {', '.join(allowed)}"
                self.error(key_node, f"unknown key `{key}` in {where}", hint)
                continue
            items[key] = (key_node, value_node)
        return items

    def string(self, node: yaml.Node, what: str) -> str | None:
        if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":str"):
            return str(node.value)
        self.error(node, f"{what} must be a string", f"quote the value of {what}")
        return None

    def strings(self, node: yaml.Node, what: str) -> tuple[str, ...] | None:
        if isinstance(node, yaml.ScalarNode):
            value = self.string(node, what)
            return None if value is None else (value,)
        if isinstance(node, yaml.SequenceNode):
            found = [self.string(item, what) for item in node.value]
            return None if any(v is None for v in found) else tuple(v for v in found if v)
        self.error(node, f"{what} must be a string or a list of strings")
        return None

    def verdict(self, node: yaml.Node, what: str) -> Verdict | None:
        value = node.value if isinstance(node, yaml.ScalarNode) else None
        if isinstance(value, str) and value.lower() in ("allow", "ask", "deny"):
            return Verdict.parse(value)
        hint = did_you_mean(str(value), ("allow", "ask", "deny")) or f"use {_VERDICTS}"
        self.error(node, f"{what} must be {_VERDICTS}, not `{value}`", hint)
        return None

    def one_of(self, node: yaml.Node, value: str, options: Iterable[str], what: str) -> bool:
        options = tuple(options)
        if value in options:
            return True
        hint = did_you_mean(value, options) or f"expected one of {', '.join(sorted(options))}"
        self.error(node, f"unknown {what} `{value}`", hint)
        return False

    # -- the document -----------------------------------------------------

    def policy(self, node: yaml.Node | None, source: str) -> Policy | None:
        if node is None:
            self.issues.append(
                Issue(1, "the policy file is empty", "start from the packaged default policy")
            )
            return None
        items = self.mapping(node, "the policy", TOP_KEYS)
        if items is None:
            return None
        version = items.get("version")
        if version is None:
            self.error(node, "the policy has no `version`", "add `version: 1` at the top")
        elif not (isinstance(version[1], yaml.ScalarNode) and version[1].value == "1"):
            self.error(
                version[1], f"unsupported policy version `{version[1].value}`", "use `version: 1`"
            )
        if "custom_tools" in items:
            self.custom_tools = set(self.strings(items["custom_tools"][1], "`custom_tools`") or ())
        default = Verdict.ALLOW
        if "default" in items:
            default = self.verdict(items["default"][1], "`default`") or Verdict.ALLOW
        unknown = None
        if "unknown_tool" in items:
            unknown = self.verdict(items["unknown_tool"][1], "`unknown_tool`")
        rules = self.rules(items["rules"][1]) if "rules" in items else ()
        contexts = self.contexts(items["contexts"][1]) if "contexts" in items else {}
        port, socket = self.approval(items["approval"][1]) if "approval" in items else (None, None)
        hermes = (
            self.string(items["hermes_home"][1], "`hermes_home`")
            if ("hermes_home" in items)
            else None
        )
        return Policy(
            default,
            unknown,
            rules,
            contexts,
            port,
            socket,
            hermes,
            tuple(sorted(self.custom_tools)),
            read_run_settings(self, items),
            source,
            opinion=read_opinion(self, items),
            inbound=read_inbound(self, items),
        )

    def approval(self, node: yaml.Node) -> tuple[int | None, str | None]:
        items = self.mapping(node, "`approval`", APPROVAL_KEYS) or {}
        port: int | None = None
        socket: str | None = None
        if "port" in items:
            value = self.plain(items["port"][1])
            if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536:
                port = value
            else:
                self.error(
                    items["port"][1],
                    f"`approval.port` must be a port number, not `{value}`",
                    "use a number from 1 to 65535",
                )
        if "socket" in items:
            socket = self.string(items["socket"][1], "`approval.socket`")
        return port, socket

    def contexts(self, node: yaml.Node) -> dict[str, Verdict]:
        items = self.mapping(node, "`contexts`", tuple(k.value for k in ContextKind)) or {}
        found: dict[str, Verdict] = {}
        for name, (_, value) in items.items():
            inner = self.mapping(value, f"`contexts.{name}`", CONTEXT_KEYS) or {}
            if "ask" in inner:
                verdict = self.verdict(inner["ask"][1], f"`contexts.{name}.ask`")
                if verdict is Verdict.ALLOW:
                    self.error(
                        inner["ask"][1],
                        "an ask may become `deny` or stay `ask`, never `allow`",
                        "use `ask: deny` or `ask: ask`",
                    )
                elif verdict is not None:
                    found[name] = verdict
        return found

    def rules(self, node: yaml.Node) -> tuple[PolicyRule, ...]:
        if not isinstance(node, yaml.SequenceNode):
            self.error(node, "`rules` must be a list", "start each rule with `- id: ...`")
            return ()
        found: list[PolicyRule] = []
        seen: dict[str, int] = {}
        for item in node.value:
            rule = self.rule(item)
            if rule is None:
                continue
            if rule.id in seen:
                self.error(
                    item,
                    f"rule id `{rule.id}` is used twice",
                    f"rename one (the other is on line {seen[rule.id]})",
                )
                continue
            seen[rule.id] = rule.line
            found.append(rule)
        return tuple(found)

    def rule(self, node: yaml.Node) -> PolicyRule | None:
        named = _peek_id(node)
        items = self.mapping(node, f"rule `{named}`" if named else "a rule", RULE_KEYS)
        if items is None:
            return None
        rule_id = self.string(items["id"][1], "`id`") if "id" in items else None
        where = f"rule `{rule_id}`" if rule_id else "a rule"
        if "id" not in items:
            self.error(node, "a rule has no `id`", "give each rule a short `id`, like `ask-send`")
        elif rule_id is not None and not _RULE_ID.match(rule_id):
            self.error(
                items["id"][1],
                f"rule id `{rule_id}` is not a plain name",
                "use lowercase letters, digits, `.`, `_` and `-`",
            )
        verdict = (
            self.verdict(items["verdict"][1], f"the verdict of {where}")
            if ("verdict" in items)
            else None
        )
        if "verdict" not in items:
            self.error(node, f"{where} has no `verdict`", f"add `verdict:` with {_VERDICTS}")
        match = (
            self.match(items["match"][1], f"`match` of {where}") if "match" in items else Match()
        )
        unless = (
            self.match(items["unless"][1], f"`unless` of {where}") if "unless" in items else None
        )
        reason = self.string(items["reason"][1], "`reason`") or "" if "reason" in items else ""
        repair = self.string(items["repair"][1], "`repair`") or "" if "repair" in items else ""
        examples = self.examples(items["examples"][1], where) if "examples" in items else ()
        if rule_id is None or verdict is None or match is None:
            return None
        if verdict is Verdict.ALLOW and _touches_hard_lines(match):
            self.warn(
                node,
                f"{where} allows hard lines or never-run kinds, which no policy can lift",
                "narrow `match` to the rules you mean to allow",
            )
        return PolicyRule(rule_id, verdict, match, unless, reason, repair, examples, _line(node))

    def match(self, node: yaml.Node, where: str) -> Match | None:
        items = self.mapping(node, where, CALL_KEYS + HIT_KEYS)
        if items is None:
            return None
        values: dict[str, tuple[str, ...]] = {}
        ok = True
        for key, (_, value_node) in items.items():
            found = self.strings(value_node, f"`{key}` in {where}")
            if found is None:
                ok = False
                continue
            checked = self.match_values(key, found, value_node)
            ok = ok and checked is not None
            values[key] = checked or ()
        return Match(**values) if ok else None

    def match_values(
        self, key: str, values: tuple[str, ...], node: yaml.Node
    ) -> tuple[str, ...] | None:
        out: list[str] = []
        ok = True
        for value in values:
            if key == "rule":
                canonical = self.rule_id(value, node)
                ok = ok and canonical is not None
                out.append(canonical or value)
                continue
            if (
                key == "tool"
                and not is_glob(value)
                and not (known_tool(value) or value in self.custom_tools)
            ):
                hint = did_you_mean(value, [*TOOLS, *self.custom_tools])
                self.error(
                    node,
                    f"unknown tool `{value}`",
                    hint or "declare it under `custom_tools`, or use a pattern like `mcp__*`",
                )
                ok = False
            elif key == "kind":
                ok = self.one_of(node, value, (k.value for k in ActionKind), "action kind") and ok
            elif key == "context":
                ok = self.one_of(node, value, (k.value for k in ContextKind), "context") and ok
            elif key == "severity":
                ok = self.one_of(node, value, SEVERITIES, "severity") and ok
            elif key == "category":
                known = {r.category for r in CATALOG} | {NEVER_RUN_CATEGORY}
                ok = self.one_of(node, value, known, "rule category") and ok
            elif key == "path" and not value.startswith(("/", "~/", "**", "*")) and value != "~":
                self.error(
                    node,
                    f"path pattern `{value}` is relative",
                    "start path patterns with `/`, `~/` or `**/`",
                )
                ok = False
            out.append(value.lower() if key == "host" else value)
        return tuple(out) if ok else None

    def rule_id(self, value: str, node: yaml.Node) -> str | None:
        known = [*BY_ID, *NEVER_RUN_IDS]
        if is_glob(value):
            import fnmatch

            if not any(fnmatch.fnmatchcase(k, value) for k in known):
                self.error(
                    node,
                    f"rule pattern `{value}` matches no rule",
                    did_you_mean(value, known) or "see `docs/rules.md` for rule ids",
                )
                return None
            return value
        rule = resolve(value)
        if rule is not None:
            return rule.id
        if value in NEVER_RUN_IDS:
            return value
        self.error(
            node,
            f"unknown rule id `{value}`",
            did_you_mean(value, known) or "see `docs/rules.md` for rule ids",
        )
        return None

    def examples(self, node: yaml.Node, where: str) -> tuple[Example, ...]:
        if not isinstance(node, yaml.SequenceNode):
            self.error(node, f"`examples` of {where} must be a list")
            return ()
        found: list[Example] = []
        for item in node.value:
            example = self.example(item, where)
            if example is not None:
                found.append(example)
        return tuple(found)

    def example(self, node: yaml.Node, where: str) -> Example | None:
        items = self.mapping(node, f"an example of {where}", EXAMPLE_KEYS)
        if items is None:
            return None
        missing = [k for k in ("tool", "expect") if k not in items]
        if missing:
            self.error(
                node,
                f"an example of {where} has no `{missing[0]}`",
                "give each example a `tool`, its `args` and the `expect`ed verdict",
            )
            return None
        tool = self.string(items["tool"][1], "`tool`")
        expect = self.verdict(items["expect"][1], "`expect`")
        args: Any = self.plain(items["args"][1]) if "args" in items else {}
        if not isinstance(args, dict):
            self.error(items["args"][1], "`args` must be a mapping", "write `args: {key: value}`")
            return None
        text = {
            k: self.string(items[k][1], f"`{k}`") if k in items else None
            for k in ("cwd", "context", "code")
        }
        context = text["context"]
        if context is not None and not self.one_of(
            items["context"][1], context, (k.value for k in ContextKind), "context"
        ):
            return None
        if tool is None or expect is None:
            return None
        return Example(tool, args, expect, text["cwd"], context, text["code"], _line(node))


def _touches_hard_lines(match: Match) -> bool:
    return (
        "hardline" in match.severity
        or NEVER_RUN_CATEGORY in match.category
        or any(r.startswith("never-run") for r in match.rule)
    )


def _peek_id(node: yaml.Node) -> str | None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if getattr(key, "value", None) == "id" and isinstance(value, yaml.ScalarNode):
                return str(value.value)
    return None
