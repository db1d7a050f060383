"""The policy's `second_opinion` and `inbound` blocks: off unless given,
read with their defaults, mistakes named by line with a repair."""

from __future__ import annotations

import pytest

from redline.policy.load import Issue, PolicyError, parse_policy
from redline.policy.model import OpinionSettings, Policy


def test_both_are_off_by_default() -> None:
    policy = parse_policy("version: 1\n")
    assert (policy.opinion, policy.inbound) == (None, ())


def test_the_blocks_are_read_with_their_defaults() -> None:
    policy = parse_policy(
        "version: 1\n"
        "second_opinion:\n"
        "  base_url: http://127.0.0.1:11434/v1/\n"
        "  model: qwen2.5:3b\n"
        "inbound: {channels: [telegram, discord, telegram]}\n"
    )
    assert policy.opinion == OpinionSettings(
        "http://127.0.0.1:11434/v1", "qwen2.5:3b", None, 4000, 60, ("asked", "risky")
    )
    assert policy.inbound == ("telegram", "discord")
    assert policy.opinion.signals == frozenset(
        {"network-secret", "upload", "unknown-program", "computed-command",
         "write-outside-workspace"}
    )  # fmt: skip


def test_single_signals_select_only_themselves() -> None:
    policy = parse_policy(
        "version: 1\nsecond_opinion: {base_url: 'https://api.example/v1', model: m,"
        " api_key_env: OPENAI_API_KEY, timeout_ms: 800, max_calls_per_hour: 5,"
        " on: [upload, computed-command]}\n"
    )
    assert policy.opinion == OpinionSettings(
        "https://api.example/v1", "m", "OPENAI_API_KEY", 800, 5, ("upload", "computed-command")
    )
    assert policy.opinion.signals == frozenset({"upload", "computed-command"})


def test_mistakes_are_named_by_line_with_a_repair() -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy(
            "version: 1\n"
            "second_opinion:\n"
            "  base_url: 127.0.0.1:8080\n"
            "  model: m\n"
            "  api_key_env: sk-abc123\n"
            "  timeout_ms: 0\n"
            "  max_calls_per_hour: lots\n"
            "  on: [asked, risk]\n"
            "inbound: {channels: [Tele Gram]}\n"
        )
    assert caught.value.issues == (
        Issue(3, "`second_opinion.base_url` must start with http:// or https://, not "
                 "`127.0.0.1:8080`", "write the API's base, e.g. `http://127.0.0.1:8080/v1`"),
        Issue(5, "`second_opinion.api_key_env` must name a variable, not `sk-abc123`",
              "give the variable's name (`OPENAI_API_KEY`), never the key itself"),
        Issue(6, "`second_opinion.timeout_ms` must be a whole number from 50 to 60000, not `0`",
              "write e.g. `timeout_ms: 4000`"),
        Issue(7, "`second_opinion.max_calls_per_hour` must be a whole number from 0 to 100000,"
                 " not `lots`", "write e.g. `max_calls_per_hour: 60`"),
        Issue(8, "unknown `second_opinion.on` value `risk`", "did you mean `risky`?"),
        Issue(9, "`inbound.channels` has `Tele Gram`, which is not a channel name",
              "use the gateway's platform names in lower case (`telegram`, `discord`, `slack`)"),
    )  # fmt: skip


def test_a_block_without_its_model_is_refused() -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy("version: 1\nsecond_opinion: {base_url: 'http://x/v1'}\n")
    assert caught.value.issues == (
        Issue(2, "`second_opinion` has no `model`",
              "give `base_url` (e.g. `http://127.0.0.1:11434/v1`) and `model`"),
    )  # fmt: skip


def test_the_blocks_survive_the_compiled_cache() -> None:
    policy = parse_policy(
        "version: 1\nsecond_opinion: {base_url: 'http://x/v1', model: m, on: [allowed]}\n"
        "inbound: {channels: [slack]}\n"
    )
    again = Policy.from_json(policy.to_json())
    assert (again.opinion, again.inbound) == (policy.opinion, policy.inbound)
