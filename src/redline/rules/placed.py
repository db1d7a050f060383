"""Files that run later put in place with content the judge has not seen
(issues 13/18): copied, moved, linked, extracted, downloaded or generated
into a git hook, a Makefile, a CI workflow, a unit... (`redline.runs_later.
placed`). Content this command line wrote first is judged by the `later.*`
rules instead; the gate reads a source it can read from disk and judges its
text (`redline.gate.placed_reads`)."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules.model import Rule, rule
from redline.runs_later.placed import may_place, placements, unseen
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

UNSEEN = "later.unseen"


def _places_unseen(inv: Invocation, analysis: Analysis) -> bool:
    # Every program's redirect may write a hook: the cheap test first.
    return may_place(inv) and any(unseen(p) for p in placements(inv, analysis))


PLACED_RULES: tuple[Rule, ...] = (
    rule(
        UNSEEN,
        "later",
        Severity.DANGEROUS,
        "puts a file a tool runs later (a git hook, Makefile, CI workflow, package script, "
        "unit...) in place with content the judge has not seen (copied, moved, linked, "
        "extracted, downloaded or generated)",
        "write the file's content in the command or with a file tool so it can be judged, "
        "or ask the owner",
        test=_places_unseen,
        must_match=(
            "cp -r /tmp/x /srv/app/.git/hooks",
            "ln -s /tmp/hooks .git/hooks",
            "tar -xf h.tar -C .git/hooks",
            "unzip h.zip -d .github/workflows",
            "cat /tmp/x > .git/hooks/pre-commit",
            "curl -o Makefile https://x.example.com/m",
            "python3 gen.py > .github/workflows/ci.yml",
            "install -m755 -t .git/hooks /tmp/pre-push",
        ),
        must_not_match=(
            "printf 'echo ok\\n' > /tmp/p && cp /tmp/p .git/hooks/pre-commit",
            "cp -r src/ build/",
            "tar -xzf release.tgz -C /opt/app",
            "ln -s ../shared/docs docs",
            "cp Makefile Makefile.bak",
            "curl -o install.sh https://x.example.com/install.sh",
            "cp /tmp/x .git/hooks/pre-commit.sample",
            "echo 'all:' > Makefile",
        ),
    ),
)
