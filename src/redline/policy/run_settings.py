"""Validating the policy's settings for `redline run`: `env`, `enforce` and
`sandbox`, with line numbers like the rest of the policy.

    env: {pass: [PIP_INDEX_URL, "MYAPP_*"]}   # secret-like names that may pass
    enforce: best-effort                      # required | best-effort | off
    sandbox:
      writable: [~/.gradle, /srv/build]       # besides the workspace and temp
      network: true                           # false: like `redline run --no-network`
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

from redline.policy.load import did_you_mean
from redline.policy.model import ENFORCE_LEVELS, RunSettings

if TYPE_CHECKING:
    from redline.policy.validate import Items, Reader

TOP_KEYS = ("env", "enforce", "sandbox")
ENV_KEYS = ("pass",)
SANDBOX_KEYS = ("writable", "network")


def read_run_settings(reader: Reader, items: Items) -> RunSettings:
    settings = RunSettings()
    if "env" in items:
        settings = settings._replace(env_pass=_env_pass(reader, items["env"][1]))
    if "enforce" in items:
        settings = settings._replace(enforce=_enforce(reader, items["enforce"][1]))
    if "sandbox" in items:
        inner = reader.mapping(items["sandbox"][1], "`sandbox`", SANDBOX_KEYS) or {}
        if "writable" in inner:
            paths = reader.strings(inner["writable"][1], "`sandbox.writable`") or ()
            for path in paths:
                if not path.startswith(("/", "~/")):
                    reader.error(
                        inner["writable"][1],
                        f"writable path `{path}` is relative",
                        "start writable paths with `/` or `~/`",
                    )
            settings = settings._replace(writable=paths)
        if "network" in inner:
            value = reader.plain(inner["network"][1])
            if isinstance(value, bool):
                settings = settings._replace(network=value)
            else:
                reader.error(
                    inner["network"][1],
                    f"`sandbox.network` must be `true` or `false`, not `{value}`",
                    "use `network: false` to run commands without a network",
                )
    return settings


def _env_pass(reader: Reader, node: yaml.Node) -> tuple[str, ...]:
    from redline.secrets import is_platform_name

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
    return names


def _enforce(reader: Reader, node: yaml.Node) -> str:
    value = node.value if isinstance(node, yaml.ScalarNode) else None
    if isinstance(value, str) and value in ENFORCE_LEVELS:
        return value
    hint = did_you_mean(str(value), ENFORCE_LEVELS) or "use `required`, `best-effort` or `off`"
    reader.error(node, f"`enforce` must be `required`, `best-effort` or `off`, not `{value}`", hint)
    return "required"  # unreachable in a loaded policy: the error stops it
