"""Files written and run in the same command (issue #13, family 3).

`cat > x.sh <<EOF ... EOF; bash x.sh`, `printf ... > h && chmod +x h && ./h`,
`echo ... > a; cp a .git/hooks/pre-commit; git commit`, `BASH_ENV=f bash -c
:`, a PATH shim, a makefile or `package.json` written then used: the
analysis remembers the text each file gets, in the order the shell runs the
commands, and when one is run it is parsed as the script it is. A file
whose text cannot be known here (`curl x > f`, `echo "$X" > f`) runs as
code no one can read.
"""

from __future__ import annotations

from collections.abc import Iterator

from redline.shell import disk_copies, paths, written_sql
from redline.shell.carriers import CODE_FLAGS, SHELLS, Carried, quote, static_output
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC
from redline.shell.script_runs import is_shell_text, language_of, script_run

# Text no reading can know, run as one computed command (asked): what an
# in-place write (`1<>FILE`) leaves of the file after its own text.
UNREADABLE = "${REDLINE_UNREADABLE_FILE}"

# How a script run from a written file is labelled in `via`.
WRITTEN = "written "
# Normalised path -> the text written there in this command (`None`: unknown).
Written = dict[str, "str | None"]
Copies = disk_copies.Copies

# Programs that write files without a redirect: `note` looks at them.
_DOWNLOADERS = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document")}
# Compilers whose output (`-o OUT`, else `a.out`) is a program built from its sources.
_COMPILERS = frozenset({"gcc", "cc", "clang", "g++", "c++", "clang++", "tcc", "rustc", "go"})
NOTED = frozenset({"tee", "sed", "perl", "ed", "ex", "dd", *disk_copies.COPIERS, *_DOWNLOADERS,
                   *_COMPILERS})  # fmt: skip
_MAKES = frozenset({"make", "gmake", "bmake"})
_MANAGERS = frozenset({"npm", "yarn", "pnpm", "bun"})
_HOOK_VERBS = frozenset({"commit", "push", "merge", "pull", "rebase", "checkout", "switch", "am",
                         "cherry-pick", "revert", "clone"})  # fmt: skip
_ENV_FILE = lazy_regex(r"\b(?:BASH_ENV|ENV)=(\"[^\"]*\"|'[^']*'|[^\s;&|]+)")


def note(
    written: Written, copies: Copies, inv: Invocation, before: list[Invocation], text: str
) -> None:
    """Remember what `inv` writes into files, after whatever it ran."""
    if inv.remote:
        return
    name = inv.name
    targets = [r for r in inv.redirects if r.writes and r.target is not None]
    if targets:
        output = _output(inv, written, before, text)
        for redirect in targets:
            path = _path(redirect.target.value if redirect.target else "", inv)
            if path is None or (path.startswith("/dev/") and path.split("/")[2] != "shm"):
                continue  # a device or a socket (`exec 3<>/dev/tcp/...`) holds no script
            if redirect.fd not in (None, 1):
                written[path] = None  # stderr: nothing the analysis can read
            elif redirect.op == "<>":  # written over in place: what was there may follow
                written[path] = None if output is None else output + "\n" + UNREADABLE + "\n"
            elif redirect.op.endswith(">>"):
                # Onto a copy of a file on disk: that text is not known here.
                prior = None if disk_copies.source_of(copies, path) else written.get(path, "")
                written[path] = _append(prior, output)
            elif output is None and name == "cat":  # `cat SRC > DST`: a copy
                written[path] = None
                disk_copies.note_stream(copies, written, inv, path)
            else:
                written[path] = output
    if name == "tee":
        append = inv.has_flag("a", ("append",))
        for word in inv.options.operands:
            path = _path(word.value, inv)
            if path is not None:
                body = inv.stdin_text
                written[path] = _append(written.get(path, ""), body) if append else body
    elif name in disk_copies.COPIERS:
        disk_copies.note_copy(copies, written, inv)
    elif name == "dd":  # `dd of=f <<< TEXT`
        for value in inv.values:
            path = _path(value[3:], inv) if value.startswith("of=") else None
            if path is not None:
                written[path] = inv.stdin_text if len(inv.values) == 1 else None
    elif name in _DOWNLOADERS:  # `curl -o f URL`: text from the network
        for path in _downloads(inv):
            written[path] = None
    elif name in _COMPILERS:  # a program built from source this line wrote: unread code
        _compiled(written, inv)
    elif name in _EDITORS and (name in ("ed", "ex") or inv.has_flag("i", ("in-place",))):
        for word in inv.options.operands:
            path = _path(word.value, inv)
            if path is not None and (path in written or disk_copies.source_of(copies, path)):
                written[path] = None


def runs(written: Written, copies: Copies, inv: Invocation, text: str) -> Iterator[Carried]:
    """The written (or copied) files `inv` runs, as the scripts they are."""
    if not (written or copies) or inv.remote or not inv.argv:
        return
    run = script_run(inv)
    path = None if run is None else _path(run.path, inv)
    if run is not None and path in written:
        body = written[path]
        by_path = "/" in inv.argv[0].value
        language = "shell" if run.shell else inv.name
        if by_path:
            language = _program_language(body, path or "")
        yield _carried(body, language, run.path)
    elif run is not None and path is not None and copies:
        source = disk_copies.source_of(copies, path)
        if source is not None:  # `cp evil.sh x; bash x`: told as `bash /p/evil.sh`
            label = f"{WRITTEN}{run.path}{disk_copies.COPIED}{source}"
            yield disk_copies.rerun(inv, run.path, source, label)
    name = inv.name
    if "/" not in inv.argv[0].value and "PATH=" in text:
        for found, body in written.items():  # a PATH shim: `PATH=.:$PATH ls`
            if found.rsplit("/", 1)[-1] == name and found != path:
                yield _carried(body, _program_language(body, found), found)
        for found, source in copies.items():
            if found.rsplit("/", 1)[-1] == name and found != path:
                label = f"{WRITTEN}{found}{disk_copies.COPIED}{source}"
                yield disk_copies.rerun(inv, inv.argv[0].value, source, label)
    if name == "git":
        yield from _git_hooks(written, inv, text)
    if name in SHELLS:  # `bash --rcfile f -i`
        for k, value in enumerate(inv.values[:-1]):
            rc = _path(inv.values[k + 1], inv) if value in ("--rcfile", "--init-file") else None
            if rc is not None and rc in written:
                yield _carried(written[rc], "shell", rc)
    if name.startswith("py") and "PYTHONPATH=" in text:  # `sitecustomize.py` runs first
        for found, body in written.items():
            if found.rsplit("/", 1)[-1] in ("sitecustomize.py", "usercustomize.py"):
                yield _carried(body, "python", found)
    if name in SHELLS and "ENV=" in text:
        for match in _ENV_FILE.finditer(text):
            env_file = _path(match.group(1).strip("\"'"), inv)
            if env_file is not None and env_file in written:
                yield _carried(written[env_file], "shell", env_file)
    if name in written_sql.CLIENTS:  # `printf 'DROP ...' > w.sql; sqlite3 db < w.sql`
        yield from written_sql.fed_sql(written, inv, WRITTEN)
    if name in _MAKES:
        for found in _makefiles(inv):
            if found in written:
                body = written[found]
                yield _carried(None if body is None else recipes(body), "shell", found)
    elif name in _MANAGERS:
        package = _path("package.json", inv)
        if package is not None and package in written:
            yield from _package_scripts(written[package], inv)


def _carried(body: str | None, language: str, path: str) -> Carried:
    label = WRITTEN + path
    if body is None or DYNAMIC in body:
        return Carried(DYNAMIC, label)
    if language == "shell":
        return Carried(body, label)
    from redline.shell.carriers import interpreter_family

    family = interpreter_family(language) or language
    flags = CODE_FLAGS.get(family)
    if not flags:
        return Carried(DYNAMIC, label)  # code in a language the analysis cannot read
    if family == "php":
        body = body.replace("<?php", "", 1).rsplit("?>", 1)[0]
    return Carried(f"{family} -{flags[0]} {quote(body)}", label)


def _program_language(body: str | None, path: str) -> str:
    """A file run as a program: by its `#!`, else by a shell."""
    if body is None or not body.startswith("#!") or is_shell_text(body, path):
        return "shell"
    return language_of(body, path)


# Programs that change a file in place (`sed -i`, `sed -Ei`, `perl -pi`, `ed`,
# `ex`): what a written or copied file then holds is not known here.
_EDITORS = frozenset({"sed", "perl", "ed", "ex"})


def _path(value: str, inv: Invocation) -> str | None:
    if not value or DYNAMIC in value:
        return None
    return paths.normalize(value, inv.cwd)


def _append(prior: str | None, text: str | None) -> str | None:
    return None if prior is None or text is None else prior + text


def _output(inv: Invocation, written: Written, before: list[Invocation], text: str) -> str | None:
    """What `inv` prints, when the analysis knows it."""
    if not inv.argv:
        return _group_output(inv, before, text)
    if inv.name == "cat" and inv.options.operands:
        parts = [written.get(_path(w.value, inv) or "", None) for w in inv.options.operands]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    return _printed(inv)


def _printed(inv: Invocation) -> str | None:
    output = static_output(inv)
    if output is None or inv.name != "echo":
        return output.replace("\\t", "\t") if output and inv.name == "printf" else output
    flags = [w.value for w in inv.argv[1:3] if w.value in ("-n", "-e", "-E", "-ne", "-en")]
    if any("e" in f for f in flags):
        output = output.replace("\\n", "\n").replace("\\t", "\t")
    return output if any("n" in f for f in flags) else output + "\n"


def _group_output(inv: Invocation, before: list[Invocation], text: str) -> str | None:
    """`{ echo a; echo b; } > f`, `(echo a; printf b) > f`: the group's commands' output."""
    close = len(text[: inv.span.start].rstrip())
    if close == 0 or text[close - 1] not in "})":
        return None
    opener = "{" if text[close - 1] == "}" else "("
    depth, k = 0, close - 1
    while k >= 0:
        char = text[k]
        depth += 1 if char in "})" else -1 if char in "{(" else 0
        if depth == 0:
            break
        k -= 1
    if k < 0 or text[k] != opener:
        return None
    members = [i for i in before if i.depth == inv.depth and k < i.span.start < close]
    if not members:
        return None
    parts = [_printed(i) for i in members]
    return None if any(p is None for p in parts) else "".join(p or "" for p in parts)


def _downloads(inv: Invocation) -> list[str]:
    options = _DOWNLOADERS[inv.name]
    values = inv.values
    found = [values[k + 1] for k, v in enumerate(values[:-1]) if v in options]
    found += [v.split("=", 1)[1] for v in values if v.startswith(options[1] + "=")]
    found += [v[2:] for v in values if v.startswith(options[0]) and len(v) > 2]
    return [p for p in (_path(f, inv) for f in found if f != "-") if p is not None]


def _compiled(written: Written, inv: Invocation) -> None:
    """`gcc a.c -o a` where `a.c` was written in this line: `a` runs code the
    analysis cannot read (its source is C, Rust, Go), so running it is asked.
    A program built from sources already on disk is judged as before."""
    values = inv.values
    sources = [_path(v, inv) for v in values if not v.startswith("-")]
    if not any(p is not None and p in written for p in sources):
        return
    outputs = [values[k + 1] for k, v in enumerate(values[:-1]) if v == "-o"]
    outputs += [v[2:] for v in values if v.startswith("-o") and len(v) > 2]
    if inv.name == "go" and values[:1] == ("run",):
        return
    for output in outputs or ["a.out"]:
        path = _path(output, inv)
        if path is not None:
            written[path] = None


def _git_hooks(written: Written, inv: Invocation, text: str) -> Iterator[Carried]:
    values = inv.values
    k = 0
    while k < len(values) and values[k].startswith("-"):
        k += 2 if values[k] in ("-c", "-C") else 1
    if k >= len(values) or values[k] not in _HOOK_VERBS:
        return
    elsewhere = "hookspath" in text.lower()  # `git -c core.hooksPath=DIR commit`
    for found, body in written.items():
        hook = found.rsplit("/", 1)[-1] in _HOOK_NAMES
        if "/.git/hooks/" in "/" + found or "/hooks/" in found or (elsewhere and hook):
            yield _carried(body, _program_language(body, found), found)


_HOOK_NAMES = frozenset({"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit",
                         "pre-push", "pre-merge-commit", "post-merge", "post-checkout",
                         "pre-rebase", "post-rewrite", "applypatch-msg", "pre-applypatch",
                         "post-applypatch", "reference-transaction"})  # fmt: skip


def _makefiles(inv: Invocation) -> list[str]:
    values = inv.values
    given = [values[k + 1] for k, v in enumerate(values[:-1]) if v in ("-f", "--file")]
    given += [v[2:] for v in values if v.startswith("-f") and len(v) > 2]
    given += [v.split("=", 1)[1] for v in values if v.startswith("--file=")]
    names = given or ["GNUmakefile", "makefile", "Makefile"]
    return [p for p in (_path(n, inv) for n in names) if p is not None]


def recipes(text: str, just: bool = False) -> str:
    """The shell lines of a makefile (or a justfile), read as make reads them
    (`redline.runs_later.make_syntax`): recipe lines less `@`, `-`, `+`,
    `$$` read as `$`, make's variables by their values, and what
    `$(shell ...)` runs."""
    from redline.runs_later.make_syntax import just_commands, make_commands

    return "\n".join(just_commands(text) if just else make_commands(text))


def _package_scripts(body: str | None, inv: Invocation) -> Iterator[Carried]:
    """`npm test`, `npm run X`, `yarn X`: the scripts of a `package.json` written here."""
    label = "package.json"
    if body is None:
        yield Carried(DYNAMIC, WRITTEN + label)
        return
    import json

    try:
        data = json.loads(body)
    except ValueError:
        return  # the manager refuses a package.json it cannot read
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return
    words = [v for v in inv.values if not v.startswith("-")]
    verb = words[0] if words else "install"
    if verb in ("run", "run-script") and len(words) > 1:
        names = [words[1]]
    elif verb in ("install", "i", "ci", "add"):
        names = ["preinstall", "install", "postinstall", "prepare"]
    elif verb in ("test", "t", "start", "stop", "restart") or inv.name != "npm":
        names = ["test" if verb == "t" else verb]
    else:
        return
    for script in names:
        for key in ("pre" + script, script, "post" + script):
            if isinstance(scripts.get(key), str):
                yield Carried(scripts[key], WRITTEN + label)
