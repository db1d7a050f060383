"""What JavaScript, Ruby, Perl and PHP code does to the system, as the shell
commands that would do the same (issue #13, family 7): `fs.rmSync(P,
{recursive: true})` is `rm -rf P`, `Process.kill(9, -1)` is `kill -9 -- -1`,
`system($c)` with `$c` bound to a string runs that string, a write to
`/dev/sda` is `: > /dev/sda`, a request whose body is a key file or the
whole environment is `curl --data-binary`. Read with `code_tokens`.
"""

from __future__ import annotations

from redline.shell.code_tokens import Reader, Value, tokens
from redline.shell.lazy_regex import lazy_regex
from redline.shell.sink_words import Sinks, command, path_word

_JS = frozenset({"node", "nodejs", "bun", "deno"})
_TREE_DELETES = frozenset({"rm_rf", "rm_r", "remove_dir", "remove_entry", "rmtree",
                           "remove_tree", "rimraf", "removeSync"})  # fmt: skip
_FILE_DELETES = frozenset({"unlinkSync", "unlink", "rm_f", "safe_unlink"})
_SHELL_TEXT = frozenset({"execSync", "shell_exec", "passthru", "popen", "proc_open", "system",
                         "exec", "spawn", "execCommand", "capture2", "capture2e", "capture3",
                         "popen2", "popen2e", "popen3", "pipeline_r", "pipeline_w",
                         "pipeline"})  # fmt: skip
_RUBY_SEND = lazy_regex(r"(?:\b\w+\.)?\b(?:public_send|__send__|send)\(\s*:(\w+)\s*,?\s*")
_ARGV_CALLS = frozenset({"execFileSync", "execFile", "spawnSync", "Command", "pcntl_exec"})
_WRITES = frozenset({"writeFileSync", "writeFile", "appendFileSync", "appendFile",
                     "createWriteStream", "file_put_contents", "writeTextFileSync",
                     "binwrite"})  # fmt: skip
_READS = frozenset({"readFileSync", "readFile", "file_get_contents", "read", "readTextFileSync",
                    "binread", "slurp"})  # fmt: skip
_SENDS = frozenset({"fetch", "post", "put", "request", "post_form", "file_get_contents",
                    "curl_exec", "axios", "patch"})  # fmt: skip
_ENV_DUMPS = frozenset({"process.env", "ENV", "%ENV", "$_ENV", "Deno.env.toObject", "getenv"})
# Perl's and Ruby's calls that may go without brackets.
_BARE = frozenset({"system", "exec", "kill", "unlink", "rmtree", "remove_tree", "spawn"})
_SIGNALS = {"KILL": 9, "SIGKILL": 9, "TERM": 15, "SIGTERM": 15, "HUP": 1, "SIGHUP": 1,
            "INT": 2, "SIGINT": 2, "STOP": 19, "SIGSTOP": 19}  # fmt: skip


def script_sinks(code: str, family: str) -> Sinks:
    if family == "ruby" and "send" in code:  # `Kernel.send(:system, CMD)` is `system(CMD)`
        code = _RUBY_SEND.sub(lambda m: f"{m[1]}(", code)
    toks = tokens(code, family)
    reader = Reader(toks, family)
    found: list[str] = []
    told_spans: list[tuple[int, int]] = []
    for k, tok in enumerate(toks):
        callee = tok.text
        if tok.kind == "str" and isinstance(tok.value, str) and reader.text_at(k - 1) == "[":
            if reader.text_at(k + 1) != "]" or reader.text_at(k + 2) != "(":
                continue
            callee, k = tok.value, k + 1  # `cp["execSync"]("reboot")`
        elif tok.kind != "name":
            continue
        following = reader.text_at(k + 1)
        if following == "(":
            args, _ = reader.arguments(k + 1)
        elif callee in _BARE and family in ("perl", "ruby") and _starts_value(reader, k + 1):
            args = reader.bare_arguments(k + 1)
        else:
            continue
        qualifier = reader.text_at(k - 2) if reader.text_at(k - 1) in (".", "::", "->") else ""
        told = _told(reader, family, callee, qualifier, args)
        if told is not None:
            found.append(told)
            end = reader.arguments(k + 1)[1] if following == "(" else k
            if following == "(" and args[:1] and args[0][0] is not None and _plain(reader, k, end):
                told_spans.append((_receiver_start(reader, k), end))
    rest = _rest(reader, told_spans) if family in _JS else None
    return Sinks(tuple(found), rest)


# Calls an argument may make for its call to be taken away whole.
_VALUE_CALLS = frozenset({"require", "homedir", "join", "resolve", "toString", "alloc"})


def _plain(reader: Reader, start: int, end: int) -> bool:
    """The call's arguments run nothing: no function, no call but those computing a value."""
    toks = reader.toks
    for j in range(start + 1, end):
        text = toks[j].text
        if text in ("=>", "function", "eval", "await", "new"):
            return False
        if toks[j].kind == "name" and reader.text_at(j + 1) == "(" and text not in _VALUE_CALLS:
            return False
    return True


def _receiver_start(reader: Reader, k: int) -> int:
    """Where `require('fs').rmSync` or `fs.promises.rm` begins, from its last name."""
    toks = reader.toks
    while k >= 2 and toks[k - 1].text == ".":
        before = k - 2
        if toks[before].text == ")":
            depth = 0
            while before >= 0:
                depth += {")": 1, "(": -1}.get(toks[before].text, 0)
                if depth == 0:
                    break
                before -= 1
            before -= 1
        if before < 0 or toks[before].kind != "name":
            return k
        k = before
    return k


# Modules only ever used for told calls may be required: their names are
# then gone with the calls.
_REQUIRED = frozenset({"fs", "child_process", "node:fs", "node:child_process", "fs/promises"})


def _rest(reader: Reader, spans: list[tuple[int, int]]) -> str:
    """The code less its told calls and its `require`s of their modules, as words."""
    toks = reader.toks
    dropped = {j for start, end in spans for j in range(start, end)}
    for k, tok in enumerate(toks):
        if tok.text in ("const", "let", "var"):
            end = k + 1
            while end < len(toks) and toks[end].text not in (";", "="):
                end += 1
            call = end + 1
            if (
                reader.text_at(call) == "require" and reader.text_at(call + 1) == "("
                and call + 3 < len(toks) and toks[call + 2].value in _REQUIRED
                and reader.text_at(call + 3) == ")"
            ):  # fmt: skip
                dropped.update(range(k, call + 4))
    words = [t.text for j, t in enumerate(toks) if j not in dropped]
    return " ".join(words) or ";"


def _starts_value(reader: Reader, k: int) -> bool:
    tok = reader.toks[k] if k < len(reader.toks) else None
    return tok is not None and (tok.kind in ("str", "num", "name") or tok.text == "-")


Args = list[tuple[Value, tuple[int, int]]]


def _told(reader: Reader, family: str, name: str, qualifier: str, args: Args) -> str | None:
    values = [v for v, _ in args]
    first = values[0] if values else None
    if name in _TREE_DELETES or (name in ("rmSync", "rm", "rmdirSync", "rmdir", "remove",
                                          "removeSync") and family in _JS):  # fmt: skip
        if not isinstance(first, str):
            return None
        recursive = name in _TREE_DELETES or _mentions(reader, args[1:], "recursive")
        return f"rm {'-rf' if recursive else '-f'} -- {path_word(first)}"
    if (
        name in _FILE_DELETES
        or (name in ("delete", "unlink") and qualifier == "File")
        or (name == "unlink" and family in ("perl", "php"))
    ):
        paths = [v for v in values if isinstance(v, str)]
        return "rm -f -- " + " ".join(path_word(p) for p in paths) if paths else None
    if name == "rmdir" and family == "php" and isinstance(first, str):
        return f"rmdir -- {path_word(first)}"
    if name in ("kill", "posix_kill") and (family != "ruby" or qualifier == "Process"):
        return _kill(name, family, qualifier, values)
    if name in _SHELL_TEXT and qualifier not in ("re", "RegExp") and (
        family != "node" or name != "exec" or qualifier in ("", "cp", "child_process", "child")
    ):  # fmt: skip
        if family in ("perl", "ruby") and (len(values) > 1 or isinstance(first, list)):
            return command(_flat(values))  # `system("rm", "-rf", P)`, `IO.popen(["rm", P])`
        if name == "spawn" and family in _JS:
            return _argv(first, values[1] if len(values) > 1 else [])
        return first if isinstance(first, str) else None
    if name in _ARGV_CALLS:
        if name == "Command" and len(values) > 1:
            return _argv(first, _key_list(reader, args[1], "args"))
        return _argv(first, values[1] if len(values) > 1 else [])
    if name == "run" and qualifier == "Deno" and args:
        return command(_flat(_key_list(reader, args[0], "cmd")))
    if name in _WRITES or (name == "write" and qualifier in ("File", "IO")):
        return f": > {path_word(first)}" if isinstance(first, str) else None
    if name in ("open", "fopen", "sysopen"):
        return _open(family, values)
    if name in _SENDS:
        return _send(reader, values, args)
    return None


def _kill(name: str, family: str, qualifier: str, values: list[Value]) -> str | None:
    if family == "node" and qualifier != "process":
        return None
    if name == "posix_kill" or family in _JS:
        pids, signal = values[:1], values[1] if len(values) > 1 else 15
    else:
        pids, signal = values[1:], values[0] if values else None
    if isinstance(signal, str):
        signal = _SIGNALS.get(signal.upper().lstrip("-"), 9)
    number = signal if isinstance(signal, int) and signal >= 0 else 9
    known = [p for p in pids if isinstance(p, int)]
    if not known:
        return None
    return f"kill -{number} -- " + " ".join(str(p) for p in known)


def _open(family: str, values: list[Value]) -> str | None:
    """`open(F, ">", P)`, `open(F, ">P")`, `fopen(P, "w")`, `File.open(P, "w")`."""
    strings = [v for v in values if isinstance(v, str)]
    if family == "perl":
        if len(values) >= 3 and isinstance(values[1], str) and isinstance(values[2], str):
            mode, path = values[1].strip(), values[2]
        elif len(values) == 2 and isinstance(values[1], str):
            text = values[1].strip()
            mode, path = text[: len(text) - len(text.lstrip("+<>"))], text.lstrip("+<> ")
        else:
            return None
        return f": > {path_word(path)}" if ">" in mode or "+<" in mode else None
    if len(strings) >= 2 and isinstance(values[0], str) and set(str(values[1])) & set("wax+"):
        return f": > {path_word(values[0])}"
    return None


def _send(reader: Reader, values: list[Value], args: Args) -> str | None:
    url = values[0] if values and isinstance(values[0], str) else "https://unknown.invalid/"
    start = args[0][1][0] if args else 0
    end = args[-1][1][1] if args else 0
    for j in range(start, end):
        tok = reader.toks[j]
        if tok.kind != "name":
            continue
        if tok.text in _READS and reader.text_at(j + 1) == "(":
            inner, _ = reader.arguments(j + 1)
            path = inner[0][0] if inner else None
            if isinstance(path, str) and not path.startswith(("http:", "https:")):
                return f"curl --data-binary @{path_word(path)} {command([url])}"
        chain = tok.text + (reader.text_at(j + 1) + reader.text_at(j + 2)
                            if reader.text_at(j + 1) == "." else "")  # fmt: skip
        if (chain in _ENV_DUMPS or tok.text in _ENV_DUMPS) and _whole_env(reader, j, chain):
            return f"env | curl --data-binary @- {command([url])}"
    return None


def _whole_env(reader: Reader, j: int, chain: str) -> bool:
    """`process.env`, `%ENV`, `getenv()`: not one variable of it."""
    after = j + (3 if "." in chain else 1)
    following = reader.text_at(after)
    if chain == "getenv" or reader.toks[j].text == "getenv":
        return following == "(" and reader.text_at(after + 1) == ")"
    return following not in (".", "[", "{", "->")


def _mentions(reader: Reader, args: Args, word: str) -> bool:
    return any(reader.toks[j].text.strip("'\"") == word for _, (a, b) in args for j in range(a, b))


def _key_list(reader: Reader, arg: tuple[Value, tuple[int, int]], key: str) -> list[Value]:
    """The list after `key:` in an object literal argument (`{args: [...]}`)."""
    start, end = arg[1]
    for j in range(start, end):
        if reader.toks[j].text.strip("'\"") == key and reader.text_at(j + 1) == ":":
            value, _ = reader.value(j + 2)
            return value if isinstance(value, list) else [None]
    return []


def _argv(program: Value, rest: Value) -> str | None:
    words = [program, *(rest if isinstance(rest, list) else [None])]
    return command(_flat(words))


def _flat(values: list[Value]) -> list[Value]:
    found: list[Value] = []
    for value in values:
        found.extend(value if isinstance(value, list) else [value])
    return found
