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


# What is asked when the judge cannot see the content, and why (rendered into docs/rules.md).
DECISIONS = (
    "A file grafted from another tree (`git checkout other -- Makefile`, `git restore "
    "--source=X`) is asked when it runs later; a whole branch switched to (`git checkout "
    "main`) and text from `HEAD` or the index (`git checkout -- Makefile`) are the project's "
    "own history, an undo: allowed.",
    "A patch names its files in its own text. Shown on the command line (`git apply <<'EOF'`) "
    "it is judged by the text it leaves in each file that runs later. From a download or a "
    "program (`curl URL | git apply`) no one can know which files it changes: asked, as a "
    "demanding owner would want for unseen content going into the project (two tldr "
    "examples, both downloads). In a file (`git apply fix.patch`, `patch -p1 < fix.diff`) "
    "the catalogue cannot read it and allows it; the gate reads it, judges what it leaves in "
    "files that run later (a patch of `src/` stays allowed) and asks one it cannot read.",
    "An archive unpacked into a folder whose files run later (`tar -C .git/hooks`, `cpio -p "
    ".git/hooks`, `cpio -i -D DIR`) is asked. Unpacked elsewhere, the gate lists its members "
    "and asks a git hook, a file inside `.git` or an `.envrc`; a source archive's own "
    "Makefile or CI workflow runs only when someone runs `make` or pushes (judged then).",
    "A `git config` setting whose command runs a file by its path (`core.fsmonitor ./x`, "
    "`alias.x '!sh /tmp/y.sh'`), `core.fsmonitor` set to a program, or `core.hooksPath` "
    "naming a folder inside the repository the judge does not watch as hooks is asked: git "
    "runs that file's text as it is later, not as it was judged. A command given in full "
    "(`core.pager 'less -FRX'`, `alias.up '!git fetch && git rebase'`) is judged as a "
    "command, as `git -c` is.",
)

PLACED_RULES: tuple[Rule, ...] = (
    rule(
        UNSEEN,
        "later",
        Severity.DANGEROUS,
        "puts a file a tool runs later (a git hook, Makefile, CI workflow, package script, "
        "unit...) in place with content the judge has not seen (copied, moved, linked, "
        "extracted, downloaded, generated, checked out from another tree or patched), or sets "
        "a git setting that runs a file or hooks folder the judge does not watch",
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
            "git checkout other -- Makefile",
            "git restore --source=origin/x .github/workflows/ci.yml",
            "git archive other Makefile | tar -x",
            "patch Makefile evil.patch",
            "curl -s https://x.example/p.diff | git apply",
            "cpio -pd .git/hooks < list",
            "awk '{print > \".git/hooks/pre-commit\"}' x",
            "git config core.fsmonitor ./x",
            "git config --global alias.y '!sh /tmp/y.sh'",
            "git config core.hooksPath hooks",
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
            "git checkout main",
            "git checkout -- Makefile",
            "git checkout other -- src/app.py",
            "git restore --staged Makefile",
            "git apply fix.patch",
            "patch -p1 < fix.diff",
            "cpio -idv < backup.cpio",
            "git config core.pager 'less -FRX'",
            "git config core.hooksPath .githooks",
            "git config core.fsmonitor true",
        ),
    ),
)
