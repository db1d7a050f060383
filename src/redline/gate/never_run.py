"""Never-run kinds: denied whatever the policy, the allowlist or an approval
says, through any tool (F-GATE-3).

A file tool is judged by its paths; a shell command by every path any of its
invocations names (operands, option values, redirects), with the paths it
writes told apart from the ones it only reads; inline code (`python -c`,
heredocs to an interpreter) by the paths it mentions and whether it writes.
"""

import functools
import re
from collections.abc import Iterator

from redline.decision import RuleHit, Severity, Span
from redline.fasttuple import NamedTuple
from redline.gate import (
    gate_environment,
    liveness,
    loopback,
    needles,
    own_cli,
    path_words,
    program_names,
    script_files,
    script_judge,
    service_contact,
)
from redline.gate.actions import Action, ActionKind
from redline.gate.operands import (
    CONTAINER_TOOLS,
    LISTERS,
    READERS,
    extra_writes,
    find_changed_roots,
    installs_crontab,
    mentions,
    only_reads,
    operand_value,
    shows_nothing,
)
from redline.gate.protected import (
    DESCRIPTIONS,
    NeverRunKind,
    Places,
    Table,
    build_table,
    canonical,
)
from redline.gate.protected import containers as container_dirs
from redline.gate.world import NOWHERE, World
from redline.rules.targets import deleted_trees, written_files
from redline.shell import globs, paths
from redline.shell.analysis import Analysis
from redline.shell.carriers import inline_code
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC

CATEGORY = "never-run"

# The approval service's port when the policy names none (`redline serve --http`'s default).
DEFAULT_PORT = 8787

# Which kind a directory holding several protected things is reported as.
_RANK = {kind: rank for rank, kind in enumerate(NeverRunKind)}
_HOME_VARIABLES = ("HERMES_HOME", "REDLINE_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR",
                   "GNUPGHOME", "XDG_CONFIG_HOME")  # fmt: skip


# Compiled on first use: a plain command line names no variable path and
# carries no code, and the hook should not compile these to judge `ls`.
@functools.cache
def _variable() -> re.Pattern[str]:
    return re.compile(r"\A\$\{?(\w+)(?::?[-=+?][^}]*)?\}?(/.*)?\Z")


@functools.cache
def _paths_in_code() -> re.Pattern[str]:
    # Each branch starts with its character (the `/` one looks behind after it):
    # the scan then only stops at `~`, `$` and `/`, eight times faster.
    return re.compile(r"(?:~|\$\{?\w+\}?|/(?<![\w.]/))[^\s'\"`;|&<>(),\[\]{}=]*")


@functools.cache
def _code_writes() -> re.Pattern[str]:
    return re.compile(
        r"""open\s*\([^)]*?['"]\s*[rb]?[wax+]|\.write\b|write_text|write_bytes|writeFile|appendFile
    |createWriteStream|unlink|remove\b|rmtree|rmdir|rename|replace\s*\(|chmod|chown|truncate
    |shutil\.|os\.system|subprocess|symlink|\bsystem\s*\(|File\.(?:write|open|delete)
    |\bprint\s*>|>>?|\brm\b|\bmv\b|\bcp\b|\btee\b|\bsed\b|\bdd\b|copyfile|move\b|\bexec\b""",
        re.VERBOSE,
    )


@functools.cache
def _prose_writes() -> re.Pattern[str]:
    return re.compile(
        r"\b(?:edit|change|update|modify|write|overwrite|delete|remove|rename|move|append|add|set|"
        r"disable|enable|replace|patch|truncate|chmod|empty|wipe|clear|install)\w*",
        re.IGNORECASE,
    )


class Guard(NamedTuple):
    """The never-run checks for one machine's places."""

    places: Places
    table: Table
    containers: frozenset[str]
    # Each protected file as the path segments code may name it by
    # (`Path.home() / ".hermes" / "config.yaml"`).
    segments: tuple[tuple[str, tuple[str, ...]], ...]
    # What a text that might name a protected path contains: a name every
    # such path contains or a variable that may stand for a home (a glob
    # character counts too). Plain substrings, not one big alternation: that
    # pattern cost about 1 ms to compile in every hook process.
    needles: tuple[str, ...]
    world: World = NOWHERE

    @classmethod
    def build(cls, places: Places, world: World = NOWHERE) -> "Guard":
        table = Table.build(build_table(places))
        segments = tuple(
            (sample, tuple(p for p in sample.split("/") if p not in ("", "~")))
            for entry in table.entries
            for sample in entry.samples
            or (() if entry.tree or entry.suffix or paths.is_glob(entry.path) else (entry.path,))
        )
        # An entry inside another's tree is named by that one's names.
        roots = tuple(e.path + "/" for e in table.entries if e.tree and not e.suffix)
        names = {
            part
            for e in table.entries
            if e.suffix or not e.path.startswith(roots)  # one C call: ~0.2 ms a hook otherwise
            for part in needles.distinctive(e.path)
        }
        names.update(v.lower() for v in _HOME_VARIABLES)
        # A name that holds another is found by that one: keep the shorter.
        kept = sorted(n for n in names if not any(m != n and m in n for m in names))
        found = (*kept, "*", "?", "[", "{")
        return cls(places, table, container_dirs(table), segments, found, world)

    def ports(self) -> frozenset[int]:
        """The ports the approval service listens on: the policy's and the
        running service's (asked of the world only when a call names a port)."""
        return frozenset({self.places.approval_port or DEFAULT_PORT, *self.world.service_ports()})

    def may_name(self, inv: Invocation) -> bool:
        """Could any word of the invocation (or its directory) name a
        protected path? Most cannot, and skip the path checks."""
        if inv.cwd and needles.names_any(self.needles, inv.cwd.lower()):
            return True
        words = [w.value for w in inv.argv[1:]] + [w.raw for w in inv.argv[1:]]
        words += [r.target.raw for r in inv.redirects if r.target is not None]
        words += [r.target.value for r in inv.redirects if r.target is not None]
        if not words:
            return False
        text = " ".join(words).lower()
        # A config file anywhere may be where an agent loads hooks from
        # (`existing_config_hit` reads it when it is changed).
        if ".json" in text or ".toml" in text or ".yaml" in text or ".yml" in text:
            return True
        return any(needle in text for needle in self.needles)

    def canon(
        self, value: str, cwd: str | None = None, raw: str = "", old: str | None = None
    ) -> str | None:
        """The canonical spelling of a path as the agent wrote it, if it can be known."""
        if cwd or DYNAMIC in value or value[:2] in ("~+", "~-"):
            value = path_words.respell(self, value, raw, cwd, old)
        if DYNAMIC in value or value.startswith("$"):
            value = self._expand(value, raw)
            if not value:
                return None
        normal = paths.normalize(value, cwd)
        if normal is None or not normal.startswith(("/", "~")):
            return None
        return canonical(self._through_links(normal), self.places.home)

    def _through_links(self, path: str) -> str:
        """`path` with its directory's links followed (`ln -s ~ /tmp/h`: then
        `/tmp/h/.ssh/id_rsa` is the owner's key); not its last component."""
        if path.startswith("/") and not path.startswith(path_words.NO_LINKS):
            head, _, name = path.rpartition("/")
            real = self.world.resolve(head) if head else None
            if real and real != head:
                return f"{real.rstrip('/')}/{name}"
        return path

    def _expand(self, value: str, raw: str) -> str:
        """`$HERMES_HOME/x`, `${HOME}/x`; an unknown variable before `/...` is
        taken as a home directory (the suffix is what names a protected file)."""
        text = (raw or value).replace('"', "").replace("'", "")
        match = _variable().match(text)
        known = {
            "HOME": self.places.home,
            "HERMES_HOME": self.places.hermes_home,
            "REDLINE_HOME": self.places.redline_home,
            "XDG_CONFIG_HOME": "~/.config",
            "CODEX_HOME": "~/.codex",
            "CLAUDE_CONFIG_DIR": "~/.claude",
            "GNUPGHOME": "~/.gnupg",
        }
        if match and match.group(1) in known:
            return known[match.group(1)] + (match.group(2) or "")
        rest = value.rsplit(DYNAMIC, 1)[-1] if DYNAMIC in value else ""
        return "~" + rest if rest.startswith("/") else ""

    def hit(self, kind: NeverRunKind, span: Span | None, where: str = "") -> RuleHit:
        description, repair = DESCRIPTIONS[kind]
        if where:
            description = f"{description}: {where}"
        return RuleHit(f"never-run.{kind}", description, Severity.HARDLINE, CATEGORY, span, repair)

    def _path_hit(self, path: str, write: bool, span: Span | None) -> RuleHit | None:
        entry = self.table.lookup(path, write)
        if entry is not None:
            return self.hit(entry.kind, span, f"`{path}` is {entry.what}")

        if write and path in self.containers:
            held = sorted(self.table.matches(path + "/*", write), key=lambda e: _RANK[e.kind])
            if held:
                return self.hit(held[0].kind, span, f"`{path}` holds {held[0].what}")
        return None

    # -- file tools -------------------------------------------------------

    def file_hits(self, action: Action, resolved: tuple[str, ...]) -> Iterator[RuleHit]:
        """`resolved`: the action's paths, normalised (`/...`)."""
        if action.kind is ActionKind.LIST:
            return
        write = action.kind in (ActionKind.WRITE, ActionKind.PATCH)
        for path in resolved:
            where = canonical(self._through_links(path), self.places.home)
            found = self._path_hit(where, write, None)
            if found is None and write:
                found = script_judge.existing_config_hit(self, path, None)
            if found is not None:
                yield found
            elif write:
                texts = action.texts
                if action.kind is ActionKind.PATCH:  # the file after it, not the patch
                    from redline.gate.patch_apply import file_texts

                    texts = file_texts(action.texts, action.base, path, self.world)
                for text in texts:
                    yield from script_judge.content_hits(self, text, path, None)

    # -- shell ------------------------------------------------------------

    def shell_hits(self, analysis: Analysis, depth: int = 0) -> Iterator[RuleHit]:
        where = gate_environment.changes_gate_variable(analysis.text)
        if where:
            yield self.hit(NeverRunKind.GATE_CONFIG, None, where)
        if "proxy" in analysis.text.lower():
            where = service_contact.proxy_reaches(
                analysis.text, self.ports(), self.world.loopback_names()
            )
            if where:
                yield self.hit(NeverRunKind.SELF_APPROVAL, None, where)
        copies: dict[str, str] | None = None
        for inv in analysis.invocations:
            if inv.remote and not loopback.runs_here(inv, analysis):
                continue
            program = own_cli.program_file(inv)
            if program is not None:
                if copies is None:
                    copies = script_files.program_copies(analysis)
                source = copies.get(paths.normalize(program, inv.cwd) or "", "")
                if "redline" in source.lower():
                    args = own_cli.after_script(inv, program)
                    verdict = own_cli.judge(args, inv.appended_args)
                    if verdict is not None:
                        yield self.hit(verdict[0], inv.span, f"a copy of redline: {verdict[1]}")
                        continue
            for found in self._invocation_hits(inv, analysis, depth):
                yield found
                break

    def _invocation_hits(
        self, inv: Invocation, analysis: Analysis, depth: int
    ) -> Iterator[RuleHit]:
        span, name = inv.span, inv.name
        args = own_cli.redline_args(inv, analysis.text) if own_cli.may_be_redline(name) else None
        if args is not None:
            verdict = own_cli.judge_run(args, inv.appended_args, analysis.text)
            if verdict is not None:
                yield self.hit(verdict[0], span, verdict[1])
        if self.may_name(inv) or path_words.may_hide(self, inv, analysis):
            found = self._path_hits(inv, analysis) or service_contact.socket_hit(self, inv)
            if found is not None:
                yield found
        code = inline_code(inv)
        for kind in liveness.listener_hits(inv, self.places, code):
            yield self.hit(kind, span)
        if args is None and service_contact.may_name_port(inv):
            where = service_contact.words_reach(
                service_contact.contact_words(inv, code),
                self.ports(),
                self.world.loopback_names(),
                inv.name,
            )
            if where:
                yield self.hit(NeverRunKind.SELF_APPROVAL, span, where)
        base = name.rsplit("/", 1)[-1] if "/" in name else name
        # The modules for these programs load only when one runs (a hook's start).
        if base in program_names.AGENTS or base in program_names.PACKAGERS:
            from redline.gate import agent_launch

            where = (
                agent_launch.leaves_gate_out(inv, analysis.text)
                if base in program_names.AGENTS
                else agent_launch.changes_gate_package(inv)
            )
            if where:
                yield self.hit(NeverRunKind.GATE_CONFIG, span, where)
        if base in program_names.CODE_TREE_PROGRAMS:
            from redline.gate import code_trees

            where = code_trees.changes_code(self, inv, analysis)
            if where:
                yield self.hit(NeverRunKind.GATE_CONFIG, span, where)
        if name == "git":
            yield from script_judge.stored_hits(self, inv, span, depth)
        joined = " ".join(inv.values)
        if gate_environment.PREFIX in joined:  # the words as bash makes them (`"REDL"INE_X=`)
            where = gate_environment.changes_gate_variable(f"{name} {joined}")
            if where:
                yield self.hit(NeverRunKind.GATE_CONFIG, span, where)
        if DYNAMIC in joined and args is None and name not in service_contact.SHOWS_ONLY:
            found = service_contact.looked_up_socket(self, inv, analysis)
            if found is not None:
                yield found
        if inv.name == "crontab" and installs_crontab(inv):
            yield self.hit(NeverRunKind.SCHEDULED_SCRIPT, span, "`crontab` installs jobs unchecked")
        if code:
            yield from self.code_hits(code, span)
        if "/proc/" in joined or any(
            r.target is not None and r.target.value.startswith("/proc/") for r in inv.redirects
        ):
            where = liveness.proc_hit(inv, analysis, self.places, self.world)
            if where:
                yield self.hit(NeverRunKind.GATE_PROCESS, span, where)
        if inv.name in liveness.SIGNALLERS:
            for kind, where in liveness.process_hits(
                inv, analysis, self.places, self.world, self.ports()
            ):
                yield self.hit(kind, span, where)
        if inv.redirects or name == "tee":
            for path, text in script_files.written_texts(inv):
                yield from script_judge.content_hits(self, text, path, span, depth)
        if depth < script_judge.MAX_SCRIPT_DEPTH:
            yield from script_judge.run_hits(self, inv, span, depth, analysis.text)

    def _path_hits(self, inv: Invocation, analysis: Analysis) -> RuleHit | None:
        span, cwd, old, fix = inv.span, inv.cwd, inv.oldcwd, path_words.link_fixer(analysis, inv)
        raw = {w.value: w.raw for w in inv.argv}
        raw.update((r.target.value, r.target.raw) for r in inv.redirects if r.target is not None)
        written: set[str] = set()
        real: list[str] = []
        for value in (*written_files(inv), *extra_writes(inv)):
            named = fix(operand_value(value), cwd)
            path = self.canon(named, cwd, operand_value(raw.get(value, "")), old)
            if path is not None:
                written.add(path)
                real.append(paths.normalize(operand_value(value), cwd) or "")
        # Trees deleted or moved away whole (not `find`'s roots: it filters).
        canonical_trees = (self.canon(t, cwd) for t in deleted_trees(inv, analysis))
        trees = {p for p in canonical_trees if p is not None}
        if inv.name == "mv":  # its sources go away whole
            moved = (self.canon(w.value, cwd) for w in inv.options.operands[:-1])
            trees.update(p for p in moved if p is not None)
        elif inv.name == "ln" or inv.name in CONTAINER_TOOLS:  # a link, a mount: a tree
            trees.update(written)
        # What a copy into a directory puts there, as a whole tree.
        into = (self.canon(p, cwd) for p in script_files.copied_into(inv))
        trees.update(p for p in into if p is not None)
        written |= trees
        for tree in find_changed_roots(inv):
            path = self.canon(tree, cwd)
            if path is not None:
                written.add(path)
        for path in sorted(written):
            found = self._path_hit(path, True, span) or (
                self._holds(path, span) if path in trees else None
            )
            if found is not None:
                return found
        for path in real:
            found = script_judge.existing_config_hit(self, path, span)
            if found is not None:
                return found
        for word, option in mentions(inv):
            path = self.canon(
                fix(operand_value(word.value), cwd), cwd, operand_value(word.raw), old
            )
            if path is None or path in written:
                continue
            found = self._mention_hit(inv, path_words.read_through(self, path), option, span)
            if found is None and inv.name not in READERS and inv.name not in LISTERS:
                here = paths.normalize(operand_value(word.value), cwd) or ""
                found = script_judge.existing_config_hit(self, here, span)
            if found is not None:
                return found
        return None

    def _holds(self, tree: str, span: Span) -> RuleHit | None:
        """A tree deleted, moved or copied over whole that holds a protected
        path (`rm -rf .venv` with the gate's code in it; `cp -r x/.claude
        /srv/app/`, an agent's settings folder)."""
        if tree in ("~", "/"):
            return None  # a hard line already
        for entry in self.table.entries:
            if not entry.suffix and entry.path.startswith(tree + "/"):
                return self.hit(entry.kind, span, f"`{tree}` holds `{entry.path}`, {entry.what}")
        name = tree.rsplit("/", 1)[-1]
        for entry in self.table.anywhere:
            if name.startswith(".") and globs.matches(name, entry.path.split("/", 1)[0]):
                return self.hit(entry.kind, span, f"`{tree}` holds {entry.what}")
        return None

    def _mention_hit(self, inv: Invocation, path: str, option: str, span: Span) -> RuleHit | None:
        name = inv.name
        entry = self.table.lookup(path, False)
        if entry is not None:
            if shows_nothing(name, inv, option):
                return None
            return self.hit(entry.kind, span, f"`{path}` is {entry.what}")
        if name in READERS or name in LISTERS or only_reads(inv):
            return None
        return self._path_hit(path, True, span)

    # -- inline code and free text -----------------------------------------

    def code_hits(self, code: str, span: Span | None, prose: bool = False) -> Iterator[RuleHit]:
        """Code (or instructions, `prose`) that names a protected path:
        reading credentials or the log, or writing anything protected; or
        that talks to the approval service or drives the gate's own parts."""
        where = gate_environment.changes_gate_variable(code)
        if where:
            yield self.hit(NeverRunKind.GATE_CONFIG, span, where)
            return
        for found in self.contact_in_code(code, span):
            yield found
            return
        writes = bool(_code_writes().search(code) or (prose and _prose_writes().search(code)))
        for path in self._paths_in(code):
            entry = self.table.lookup(path, False)
            if entry is not None and entry.tree and path == entry.path and not writes:
                entry = None  # naming a credential directory is not reading a key
            if entry is None and writes:
                entry = self.table.lookup(path, True)
            if entry is not None:
                yield self.hit(entry.kind, span, f"the code names `{path}`, {entry.what}")
                return

    def contact_in_code(self, code: str, span: Span | None) -> Iterator[RuleHit]:
        """Code that drives the gate's own parts or talks to its service."""
        yield from service_contact.code_hits(self, code, span)

    def _paths_in(self, code: str) -> Iterator[str]:
        # Each distinct path once: a module names the same few many times.
        for token in dict.fromkeys(_paths_in_code().findall(code)):
            path = self.canon(token, None, token)
            if path is not None:
                yield path
        yield from needles.samples_named(code.lower(), self.segments)

    def argument_hits(self, action: Action) -> Iterator[RuleHit]:
        """A tool nothing is known about (an MCP server's, an unknown one) that
        is given a protected path may read or write it: refused."""
        for text in action.texts:
            if (
                text[:1] in ("/", "~", "$")
                and len(text) < 4096
                and not any(c.isspace() for c in text)
            ):
                path = self.canon(text, action.base, text)
                read = None if path is None else self.table.lookup(path, False)
                if read is not None and read.kind is NeverRunKind.SELF_APPROVAL:
                    yield self.hit(read.kind, None, f"`{path}` is {read.what}")
                    return
                found = None if path is None else self._path_hit(path, True, None)
                if found is not None:
                    yield found
                    return
        # Given a path and a text, it may write the text there: judged as written.
        named = [t for t in action.texts if t[:1] in ("/", "~") and not any(c.isspace() for c in t)]
        for text in action.texts:
            if named and text not in named and text != action.command and "\n" in text:
                yield from script_judge.content_hits(self, text, named[0], None)

    def text_hits(self, action: Action) -> Iterator[RuleHit]:
        """A sub-agent's goal or a scheduled job's prompt that would change the
        gate or read credentials is refused here, before it is delegated."""
        for text in action.texts:
            where = own_cli.prose_drives_gate(text)
            if where:
                yield self.hit(NeverRunKind.SELF_APPROVAL, None, where)
                return
            yield from self.code_hits(text, None, prose=True)
