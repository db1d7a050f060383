"""Validating the policy's settings for `redline run`: `env`, `enforce` and
`sandbox`, with line numbers like the rest of the policy.

    env: {pass: [PIP_INDEX_URL, "MYAPP_*"]}   # secret-like names that may pass
    enforce: best-effort                      # required | best-effort | off
    sandbox:
      writable: [~/.gradle, /srv/build]       # besides the workspace and temp
      network: true                           # false: like `redline run --no-network`
      profiles:                               # `redline run --profile NAME`
        offline: {network: false}
        gradle: {writable: [~/.gradle], env: {pass: [GRADLE_OPTS]}}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

from redline.policy.load import did_you_mean
from redline.policy.model import ENFORCE_LEVELS, RunProfile, RunSettings

if TYPE_CHECKING:
    from redline.policy.validate import Items, Reader

TOP_KEYS = ("env", "enforce", "sandbox")
ENV_KEYS = ("pass",)
SANDBOX_KEYS = ("writable", "network", "profiles")
PROFILE_KEYS = ("writable", "network", "env")


def read_run_settings(reader: Reader, items: Items) -> RunSettings:
    settings = RunSettings()
    if "env" in items:
        settings = settings._replace(env_pass=_env_pass(reader, items["env"][1]))
    if "enforce" in items:
        settings = settings._replace(enforce=_enforce(reader, items["enforce"][1]))
    if "sandbox" in items:
        inner = reader.mapping(items["sandbox"][1], "`sandbox`", SANDBOX_KEYS) or {}
        if "writable" in inner:
            settings = settings._replace(writable=_writable(reader, inner, "`sandbox.writable`"))
        if "network" in inner:
            settings = settings._replace(network=_network(reader, inner, "`sandbox.network`"))
        if "profiles" in inner:
            settings = settings._replace(profiles=_profiles(reader, inner["profiles"][1]))
    return settings


def _writable(reader: Reader, inner: Items, what: str) -> tuple[str, ...]:
    paths = reader.strings(inner["writable"][1], what) or ()
    for path in paths:
        if not path.startswith(("/", "~/")):
            reader.error(
                inner["writable"][1],
                f"writable path `{path}` is relative",
                "start writable paths with `/` or `~/`",
            )
    return paths


def _network(reader: Reader, inner: Items, what: str) -> bool:
    value = reader.plain(inner["network"][1])
    if isinstance(value, bool):
        return value
    reader.error(
        inner["network"][1],
        f"{what} must be `true` or `false`, not `{value}`",
        "use `network: false` to run commands without a network",
    )
    return False


def _profiles(reader: Reader, node: yaml.Node) -> tuple[RunProfile, ...]:
    """`sandbox.profiles`: a mapping of names to profiles (any name that is
    a word: it is typed after `--profile`)."""
    if not isinstance(node, yaml.MappingNode):
        reader.error(node, "`sandbox.profiles` must be a mapping", "write `NAME: {network: false}`")
        return ()
    found: list[RunProfile] = []
    for key_node, value_node in node.value:
        name = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if not isinstance(name, str) or not name.replace("-", "").replace("_", "").isalnum():
            reader.error(
                key_node, f"profile name `{name}` is not a word", "use letters, digits, -, _"
            )
            continue
        if any(p.name == name for p in found):
            reader.error(key_node, f"profile `{name}` is given twice", f"keep one `{name}`")
            continue
        where = f"`sandbox.profiles.{name}`"
        inner = reader.mapping(value_node, where, PROFILE_KEYS) or {}
        profile = RunProfile(name)
        if "writable" in inner:
            profile = profile._replace(writable=_writable(reader, inner, f"{where}.writable"))
        if "network" in inner:
            profile = profile._replace(network=_network(reader, inner, f"{where}.network"))
        if "env" in inner:
            profile = profile._replace(env_pass=_env_pass(reader, inner["env"][1]))
        found.append(profile)
    return tuple(found)


def _env_pass(reader: Reader, node: yaml.Node) -> tuple[str, ...]:
    from redline.secrets import is_platform_name, is_socket_name

    inner = reader.mapping(node, "`env`", ENV_KEYS) or {}
    if "pass" not in inner:
        return ()
    names = reader.strings(inner["pass"][1], "`env.pass`") or ()
    for name in names:
        if is_platform_name(name):
            reader.warn(
                inner["pass"][1],
                f"`env.pass` names `{name}`, an agent platform's or the gate's secret; "
                "it is removed all the same",
                f"remove `{name}` from `env.pass`: such keys never reach a command",
            )
        elif is_socket_name(name):
            reader.warn(
                inner["pass"][1],
                f"`env.pass` names `{name}`, the address of a local service (a terminal "
                "multiplexer, an agent, a bus, a display): through it a command acts "
                "outside the sandbox",
                f"remove `{name}` from `env.pass` unless the sandboxed commands must reach it",
            )
    return names


def _enforce(reader: Reader, node: yaml.Node) -> str:
    value = node.value if isinstance(node, yaml.ScalarNode) else None
    if isinstance(value, str) and value in ENFORCE_LEVELS:
        return value
    hint = did_you_mean(str(value), ENFORCE_LEVELS) or "use `required`, `best-effort` or `off`"
    reader.error(node, f"`enforce` must be `required`, `best-effort` or `off`, not `{value}`", hint)
    return "required"  # unreachable in a loaded policy: the error stops it
