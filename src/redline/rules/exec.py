"""Running code the gate cannot read: inline interpreter code, scripts piped
into a shell, files made executable and run at once, interactive root
shells (F-RULES-2). `sh -c` and `eval` are not here: the analysis parses what
they carry and the other rules judge it."""

from __future__ import annotations

from collections.abc import Iterator

from redline.decision import Severity, Span
from redline.rules.code import INLINE, STDIN, code_source, code_text, inline_code, safe_options
from redline.rules.model import Rule, rule
from redline.rules.network import fetches, remote_code
from redline.rules.senders import args_from_stdin
from redline.shell import carriers, paths
from redline.shell.analysis import Analysis
from redline.shell.carriers import SHELLS, SOURCE, interpreter_family
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.wrappers import split_wrapper
from redline.shell.written_scripts import WRITTEN

D = Severity.DANGEROUS
_CODE_FAMILIES = frozenset({"python", "pypy", "perl", "ruby", "node", "nodejs", "bun", "deno",
                            "php", "lua", "luajit", "rscript", "osascript", "tclsh", "jshell",
                            "irb"})  # fmt: skip
_ELEVATORS = frozenset({"sudo", "doas", "run0", "pkexec"})
_SU_COMMAND = ("-c", "--command", "--session-command")
# `+x`, `u+rwx`, `a=rx`, `755`: a mode that lets someone execute the file.
_EXEC_MODE = lazy_regex(
    r"\A(?:[ugoa]*[+=][rwxXst]*x[rwxXst]*(?:,.*)?|0?[0-7]?[0-7]*[1357][0-7]*)\Z"
)


def _code(inv: Invocation) -> tuple[str, str] | None:
    """The interpreter family and the code it is given inline or on a known stdin."""
    family = interpreter_family(inv.name)
    if family not in _CODE_FAMILIES:
        return None
    if family == "deno":
        operands = inv.options.operands
        if len(operands) >= 2 and operands[0].value == "eval":
            return family, operands[1].value
        return None
    source = code_source(inv)
    if source is None:
        return None
    if source[0] == INLINE:
        code = inline_code(inv)
        return (family, code) if code is not None else None
    if source[0] == STDIN and inv.stdin_text is not None:
        return family, inv.stdin_text
    return None


def _inline_code(inv: Invocation, analysis: Analysis) -> bool:
    found = _code(inv)
    if found is None:
        return False
    family, code = found
    # Here, not at the top: only a call that runs inline code needs the allowlist.
    from redline.rules.harmless import harmless

    carried = carriers.inline_code(inv) == code  # its literal shell calls were analysed
    if safe_options(family, inv.values) and (
        harmless(family, code, carried) or (carried and _told_in_full(family, code))
    ):
        return False
    return not remote_code(inv, analysis)


_TOLD_FAMILIES = frozenset({"python", "pypy", "node", "nodejs", "bun", "lua", "luajit",
                            "rscript", "r", "tclsh"})  # fmt: skip


def _told_in_full(family: str, code: str) -> bool:
    """Code whose every effect is told as a shell command the analysis judged
    (`shutil.rmtree("build")`, R's `unlink("build", recursive=TRUE)` as
    `rm -rf -- build`)."""
    if family not in _TOLD_FAMILIES:
        return False
    from redline.rules.harmless import harmless
    from redline.shell.code_sinks import code_sinks

    rest = code_sinks(code, family).rest
    return rest is not None and (not rest.strip() or harmless(family, rest, True))


def _piped_script(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name not in SHELLS and inv.name not in SOURCE and _code_family(inv) is None:
        return False
    source = code_source(inv)
    if source is None or not inv.upstream:
        return False
    from_stdin = source[0] == STDIN and inv.stdin_text is None
    from_args = source[0] == INLINE and not code_text(inv) and args_from_stdin(inv)
    if not (from_stdin or from_args):
        return False
    feeders = [analysis.invocations[k] for k in inv.upstream if k < len(analysis.invocations)]
    return not any(fetches(f) for f in feeders) and not remote_code(inv, analysis)


def _code_family(inv: Invocation) -> str | None:
    family = interpreter_family(inv.name)
    return family if family in _CODE_FAMILIES else None


def _made_executable(inv: Invocation) -> set[str]:
    if inv.name != "chmod":
        return set()
    operands = inv.options.operands
    if not operands:
        return set()
    mode = operands[0].value
    if not _EXEC_MODE.match(mode):
        return set()
    found = {paths.normalize(w.value, inv.cwd) for w in operands[1:]}
    return {p for p in found if p is not None}


def _chmod_then_run(analysis: Analysis) -> Iterator[Span]:
    """One pass: remember what was made executable, flag running it by path."""
    executable: set[str] = set()
    for inv in analysis.invocations:
        if inv.remote:
            continue
        run = inv.argv[0].value if inv.argv else ""
        # A file written in this same command runs as its text, which the
        # analysis judged (`printf '#!/bin/sh\necho hi\n' > h; chmod +x h; ./h`).
        if (
            executable
            and "/" in run
            and paths.normalize(run, inv.cwd) in executable
            and not any(c.via and c.via[-1].startswith(WRITTEN) for c in analysis.children(inv))
        ):
            yield inv.span
        executable |= _made_executable(inv)


def _interactive(inv: Invocation) -> bool:
    """Nothing on stdin: the shell waits for someone to type."""
    if inv.upstream or inv.stdin_text is not None:
        return False
    return not any(r.op in ("<", "<<", "<<<", "<<-") for r in inv.redirects)


def _root_shell(inv: Invocation, analysis: Analysis) -> bool:
    name = inv.name
    if name in _ELEVATORS:
        split = split_wrapper(name, inv.argv)
        if split is None or split[0] or split[1]:
            return False
        return name == "run0" or inv.has_flag("is", ("login", "shell"))
    if name == "su":
        quiet = (*_SU_COMMAND, "--help", "-h", "--version", "-V")
        if carriers.carried_scripts(inv):  # `su -c CMD` in any spelling (`su -lc CMD`)
            return False
        return not any(v in quiet or v.startswith("--command=") for v in inv.values)
    if name in SHELLS and inv.via and inv.via[-1] in _ELEVATORS:
        source = code_source(inv)
        return source is not None and source[0] == STDIN and _interactive(inv)
    return False


EXEC_RULES: tuple[Rule, ...] = (
    rule(
        "exec.inline-code",
        "exec",
        D,
        "an interpreter runs inline code that is not plainly harmless",
        "write the code to a file in the workspace so it can be read, then run the file",
        test=_inline_code,
        aliases=("inline-script",),
        must_match=(
            "python3 -c \"__import__('os').system(input())\"",
            "python3 -c \"getattr(__builtins__,'ex'+'ec')('print(1)')\"",
            "python3 - <<'EOF'\nimport shutil, os\nshutil.rmtree(os.getcwd())\nEOF",
            "sudo python3 -c 'import os, sys; os.remove(sys.argv[1])' /etc/motd",
            "perl -e 'unlink glob \"*.log\"'",
            "ruby -e 'File.delete(\"x\")'",
            "node -e \"require('fs').rmSync(process.argv[1])\" x",
            "php -r 'unlink(\"x\");'",
            "env python3 <<< 'import socket'",
            "timeout 5 /usr/bin/perl -ne 'print `id`'",
            "bash -c \"python3 -c 'import subprocess; subprocess.run(cmd)'\"",
            "perl -MIO::Socket -e 'print 1'",
            "node -r ./hook.js -e 'console.log(1)'",
            "perl -ne 'unlink \"x\"' f.txt",
            "python3 -Ic 'import shutil; shutil.rmtree(p)'",
        ),
        must_not_match=(
            "python3 -c 'import sys; print(sys.version)'",
            'python -c "print(1+1)"',
            "node -e 'console.log(process.version)'",
            "python3 -m json.tool f.json",
            "python3 script.py",
            "perl -ne 'print if /foo/' f.txt",
            "echo 'python3 -c \"import os\"'",
            "ruby -e 'puts RUBY_VERSION'",
            "php -r 'echo PHP_VERSION;'",
            "python3 <<< 'print(2**10)'",
            "perl -MList::Util=sum -le 'print sum(1..10)'",
            'python3 -c \'import subprocess; subprocess.run(["git", "status"])\'',
            # Bundled flags: the literal shell call is analysed as a command.
            "perl -ne 'system(\"touch x\")' f.txt",
            "python3 -Ic 'import os; os.system(\"ls\")'",
            # Every effect told as a shell command the catalogue judges.
            "python3 -c 'import shutil; shutil.rmtree(\"build\")'",
            "python3 -c 'import os; os.kill(4242, 15)'",
        ),
    ),
    rule(
        "exec.pipe-to-shell",
        "exec",
        D,
        "a shell or interpreter runs a script from a pipe whose content cannot be seen",
        "run the script file directly (`bash script.sh`) so the gate can see what runs",
        test=_piped_script,
        must_match=(
            "cat x | sh",
            "cat cmds.txt | xargs -I{} sh -c",
            "some_cmd | bash",
            "cat setup.sh | sudo bash",
            "git show HEAD:run.sh | bash -s -- --fast",
            "cat x.py | python3",
            "cat x | env sh -",
            'printf "$CMD" | zsh',
        ),
        must_not_match=(
            "echo ls | sh",
            "cat files | xargs -I{} sh -c 'wc -l {}'",
            "printf 'date\\n' | bash",
            "bash script.sh",
            "sh < script.sh",
            "cat x | grep y",
            "echo 'cat x | sh'",
            "cat x | bash -c 'wc -l'",
        ),
    ),
    rule(
        "exec.chmod-then-run",
        "exec",
        D,
        "a file is made executable and run in the same command",
        "make the file executable in one call and run it in a separate call, after "
        "showing what it does",
        scan=_chmod_then_run,
        aliases=("chmod-exec",),
        must_match=(
            "chmod +x install.sh && ./install.sh",
            "chmod 755 ./run; ./run --now",
            "chmod u+x /tmp/x && sudo /tmp/x",
            "cd /opt/app && chmod a+rx go.sh && ./go.sh",
            "chmod +x a.sh || bash -c './a.sh'",
        ),
        must_not_match=(
            "chmod +x install.sh",
            "chmod 644 f && ./f",
            "chmod +x a.sh && ./b.sh",
            "./install.sh",
            "echo 'chmod +x x && ./x'",
            "chmod -x a && ./a",
        ),
    ),
    rule(
        "exec.root-shell",
        "exec",
        D,
        "an interactive root shell (`sudo -i`, `sudo su`, `sudo bash`)",
        "run each privileged command on its own with `sudo CMD`",
        programs=(*_ELEVATORS, "su", *SHELLS),
        test=_root_shell,
        must_match=(
            "sudo su",
            "sudo -i",
            "sudo bash",
            "sudo su -",
            "sudo -s",
            "doas -s",
            "sudo -u root --login",
            "sudo -E zsh",
            "su",
            "su - postgres",
        ),
        must_not_match=(
            "sudo ls",
            "sudo -i apt update",
            "sudo bash script.sh",
            "sudo su -c 'id' bob",
            "echo ls | sudo bash",
            "bash",
            "sudo -u postgres psql",
            "echo 'sudo su'",
        ),
    ),
)
