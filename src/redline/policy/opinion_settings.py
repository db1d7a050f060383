"""Validating `second_opinion` (F-APPROVE-6) and `inbound` (F-INBOUND-1),
with line numbers like the rest of the policy.

    second_opinion:
      base_url: http://127.0.0.1:11434/v1    # any OpenAI-compatible chat API
      model: qwen2.5:3b
      api_key_env: OPENAI_API_KEY            # the variable's name; never the key
      timeout_ms: 4000
      max_calls_per_hour: 60
      on: [asked, risky]                     # or allowed, or single risk signals
    inbound:
      channels: [telegram, discord]          # senders must be paired first
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from redline.policy.load import did_you_mean
from redline.policy.model import OPINION_DEFAULT_ON, OPINION_ON, OpinionSettings

if TYPE_CHECKING:
    from redline.policy.validate import Items, Reader

TOP_KEYS = ("second_opinion", "inbound")
OPINION_KEYS = ("base_url", "model", "api_key_env", "timeout_ms", "max_calls_per_hour", "on")
INBOUND_KEYS = ("channels",)
MAX_TIMEOUT_MS = 60_000
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CHANNEL = re.compile(r"[a-z0-9][a-z0-9_.-]{0,39}\Z")


def read_opinion(reader: Reader, items: Items) -> OpinionSettings | None:
    if "second_opinion" not in items:
        return None
    node = items["second_opinion"][1]
    inner = reader.mapping(node, "`second_opinion`", OPINION_KEYS)
    if inner is None:
        return None
    for required in ("base_url", "model"):
        if required not in inner:
            reader.error(
                node,
                f"`second_opinion` has no `{required}`",
                "give `base_url` (e.g. `http://127.0.0.1:11434/v1`) and `model`",
            )
    if "base_url" not in inner or "model" not in inner:
        return None
    base_url = reader.string(inner["base_url"][1], "`second_opinion.base_url`") or ""
    if base_url and not base_url.startswith(("http://", "https://")):
        reader.error(
            inner["base_url"][1],
            f"`second_opinion.base_url` must start with http:// or https://, not `{base_url}`",
            "write the API's base, e.g. `http://127.0.0.1:8080/v1`",
        )
    model = reader.string(inner["model"][1], "`second_opinion.model`") or ""
    settings = OpinionSettings(base_url.rstrip("/"), model)
    if "api_key_env" in inner:
        name = reader.string(inner["api_key_env"][1], "`second_opinion.api_key_env`") or ""
        if name and not _ENV_NAME.match(name):
            reader.error(
                inner["api_key_env"][1],
                f"`second_opinion.api_key_env` must name a variable, not `{name}`",
                "give the variable's name (`OPENAI_API_KEY`), never the key itself",
            )
        settings = settings._replace(api_key_env=name or None)
    for key, low, high in (("timeout_ms", 50, MAX_TIMEOUT_MS), ("max_calls_per_hour", 0, 100_000)):
        if key in inner:
            value = reader.plain(inner[key][1])
            if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
                if key == "timeout_ms":
                    settings = settings._replace(timeout_ms=value)
                else:
                    settings = settings._replace(max_calls_per_hour=value)
            else:
                reader.error(
                    inner[key][1],
                    f"`second_opinion.{key}` must be a whole number from {low} to {high},"
                    f" not `{value}`",
                    f"write e.g. `{key}: {getattr(settings, key)}`",
                )
    if "on" in inner:
        on = reader.strings(inner["on"][1], "`second_opinion.on`") or OPINION_DEFAULT_ON
        for value in on:
            if value not in OPINION_ON:
                hint = did_you_mean(value, OPINION_ON) or f"expected {', '.join(OPINION_ON)}"
                reader.error(inner["on"][1], f"unknown `second_opinion.on` value `{value}`", hint)
        settings = settings._replace(on=tuple(dict.fromkeys(on)))
    return settings


def read_inbound(reader: Reader, items: Items) -> tuple[str, ...]:
    if "inbound" not in items:
        return ()
    inner = reader.mapping(items["inbound"][1], "`inbound`", INBOUND_KEYS) or {}
    if "channels" not in inner:
        return ()
    channels = reader.strings(inner["channels"][1], "`inbound.channels`") or ()
    for channel in channels:
        if not _CHANNEL.match(channel):
            reader.error(
                inner["channels"][1],
                f"`inbound.channels` has `{channel}`, which is not a channel name",
                "use the gateway's platform names in lower case (`telegram`, `discord`, `slack`)",
            )
    return tuple(dict.fromkeys(channels))
