"""Turn a case list (`VERDICT<TAB>COMMAND`) into a corpus YAML with the rule
ids the current code gives; print the cases whose verdict differs from the
one written first, counted by class. Usage: fill.py NAME [--write]."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from redline.command import check_command

HERE = Path(__file__).parent


def main() -> None:
    name = sys.argv[1]
    write = "--write" in sys.argv
    cases = []
    misses: dict[str, list[str]] = {"deny": [], "ask": [], "allow": []}
    header = []
    for line in (HERE / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            header.append(line)
            continue
        if not line.strip():
            continue
        verdict, command = line.split("\t", 1)
        command = command.replace("\\n", "\n") if "<<" in command else command
        decision = check_command(command)
        got = str(decision.verdict)
        rules = sorted(set(decision.rule_ids))
        if got != verdict:
            misses[verdict].append(f"{got:5} {command!r} {rules}")
        cases.append({"command": command, "verdict": verdict, "rules": rules})
    total = {k: sum(1 for c in cases if c["verdict"] == k) for k in misses}
    for kind, found in misses.items():
        print(f"{kind}: {len(found)} missed of {total[kind]}")
        for miss in found:
            print("   ", miss)
    if write:
        body = yaml.safe_dump(cases, sort_keys=False, allow_unicode=True, width=100)
        text = "\n".join(h for h in header if "fill.py" not in h and "One case" not in h)
        out = HERE.parent / f"{name}.yaml"
        out.write_text(text + "\n" + body, encoding="utf-8")


if __name__ == "__main__":
    main()
