"""Render docs/rules.md from the catalogue, so the docs cannot drift.

Regenerate with `python -m redline.rules.docs > docs/rules.md`.
"""

from __future__ import annotations

from redline.decision import Severity
from redline.rules.catalog import CATALOG
from redline.rules.model import Rule

_VERDICT = {
    Severity.HARDLINE: "deny, always (hard line: no policy, mode or approval lifts it)",
    Severity.DANGEROUS: "ask (starting policy)",
    Severity.SENSITIVE: "ask (starting policy)",
}


def _code(text: str) -> str:
    shown = text.replace("\n", "⏎")
    fence = "``" if "`" in shown else "`"
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def _section(rule: Rule) -> list[str]:
    lines = [
        f'<a id="{rule.anchor}"></a>',
        f"### `{rule.id}`",
        "",
        f"{rule.description[0].upper()}{rule.description[1:]}.",
        "",
        f"- severity: {rule.severity}; verdict: {_VERDICT[rule.severity]}",
        f"- category: {rule.category}",
        f"- repair: {rule.repair}",
    ]
    if rule.aliases:
        lines.append("- old ids: " + ", ".join(f"`{a}`" for a in rule.aliases))
    lines.append("- matches: " + ", ".join(_code(e) for e in rule.must_match))
    lines.append("- does not match: " + ", ".join(_code(e) for e in rule.must_not_match))
    lines.append("")
    return lines


def render() -> str:
    out = [
        "# Rule catalogue",
        "",
        "Generated from `redline.rules.catalog.CATALOG` by `python -m redline.rules.docs`;",
        "a test fails when this file is stale. Every example below is run by the test suite.",
        "",
        "| id | severity | category | description |",
        "| --- | --- | --- | --- |",
    ]
    ordered = sorted(CATALOG, key=lambda r: (-r.severity, r.category, r.id))
    for rule in ordered:
        description = rule.description.replace("|", "\\|")
        out.append(
            f"| [`{rule.id}`](#{rule.anchor}) | {rule.severity} | {rule.category} | {description} |"
        )
    out.append("")
    for severity in (Severity.HARDLINE, Severity.DANGEROUS, Severity.SENSITIVE):
        rules = [r for r in ordered if r.severity is severity]
        if rules:
            out.extend([f"## {str(severity).capitalize()}", ""])
            for rule in rules:
                out.extend(_section(rule))
    out.extend(_unseen_decisions())
    out.extend(_routes())
    return "\n".join(out).rstrip("\n") + "\n"


def _unseen_decisions() -> list[str]:
    """What `later.unseen` asks when the judge cannot see the content (`rules/placed.py`)."""
    from redline.rules.placed import DECISIONS

    out = ["## Content put in place unseen: what is asked", ""]
    out.extend(f"- {decision}" for decision in DECISIONS)
    out.append("")
    return out


def _routes() -> list[str]:
    """The table of programs that run programs (`shell/run_carrier_table.py`)."""
    from redline.shell.run_carrier_table import ROUTES

    out = [
        "## Programs that run programs",
        "",
        "Routes by which a program runs a command given in an option, the environment or its",
        "configuration. The carried command is judged as a command: each example in the",
        "third column gets the row's verdict, each look-alike is allowed (the suite runs them).",
        "",
        "| program | route | carried (verdict) | look-alikes (allowed) | followed in |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in ROUTES:
        carried = ", ".join(_code(e) for e in r.carried).replace("|", "\\|")
        alike = ", ".join(_code(e) for e in r.look_alikes).replace("|", "\\|")
        route = r.route.replace("|", "\\|")
        out.append(f"| {r.program} | {route} | {carried} ({r.verdict}) | {alike} | {r.module} |")
    out.append("")
    return out


if __name__ == "__main__":
    print(render(), end="")
