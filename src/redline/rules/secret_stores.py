"""Deleting secrets from where they are kept: Vault, 1Password, Doppler,
Infisical, Bitwarden, pass, the macOS keychain, a forge's CI secrets, an
Azure key vault's purge (issue 13, family 9). A deleted secret is often the
only copy of a credential; cloud CLIs' `delete-secret` and `kubectl delete
secret` are judged by `cloud.resource-delete` and `cloud.k8s-delete`."""

from __future__ import annotations

from collections.abc import Sequence

from redline.decision import Severity
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

D = Severity.DANGEROUS

_DELETES = frozenset({"delete", "remove", "rm", "del", "destroy", "purge"})
# Per program, the nouns whose `delete` (and its aliases) destroys a secret.
_NOUNS: dict[str, frozenset[str]] = {
    "op": frozenset({"item", "vault", "document", "user", "group", "connect", "account"}),
    "doppler": frozenset({"secrets", "projects", "environments", "configs", "config"}),
    "infisical": frozenset({"secrets", "secret"}),
    "gh": frozenset({"secret", "variable"}),
    "glab": frozenset({"variable", "secret"}),
    "bw": frozenset({"delete"}),
}
_VAULT_PATHS = frozenset({("kv", "destroy"), ("kv", "delete"), ("secrets", "disable"),
                          ("auth", "disable"), ("kv", "metadata")})  # fmt: skip


def _words(inv: Invocation) -> list[str]:
    # Options come after the verbs in these CLIs; a value given to one
    # (`--vault Legal`) is read as a word, but only after the verb.
    return [v.lower() for v in inv.values if not v.startswith("-")]


def _noun_then_delete(words: Sequence[str], nouns: frozenset[str]) -> bool:
    return any(
        words[k] in nouns and words[k + 1] in _DELETES for k in range(min(len(words) - 1, 4))
    )


def _secret_delete(inv: Invocation, analysis: Analysis) -> bool:
    name = inv.name
    words = _words(inv)
    if any(v in ("--help", "-h", "-help") for v in inv.values):
        return False
    if name == "vault":
        path = tuple(words[:2])
        if path == ("kv", "metadata"):
            return words[2:3] == ["delete"]
        return path in _VAULT_PATHS or words[:1] == ["delete"]
    if name == "bw":
        return words[:1] == ["delete"]
    if name in ("pass", "gopass"):
        return words[:1] in (["rm"], ["remove"], ["delete"])
    if name == "security":
        return bool(words) and words[0].startswith("delete-")
    if name == "az":
        return "keyvault" in words[:2] and "purge" in words[:4]
    return _noun_then_delete(words, _NOUNS[name])


SECRET_STORE_RULES: tuple[Rule, ...] = (
    rule(
        "data.secret-delete",
        "data",
        D,
        "delete secrets, vaults or their versions from a secret manager",
        "leave the secret in place and ask the owner; rotate it instead of deleting it",
        programs=(*_NOUNS, "vault", "bw", "pass", "gopass", "security", "az"),
        test=_secret_delete,
        must_match=(
            "vault kv destroy -versions=1,2 secret/app",
            "vault kv metadata delete secret/app",
            "vault secrets disable kv/",
            "vault delete secret/legacy",
            "op item delete 'Prod DB'",
            "op vault rm Shared",
            "doppler secrets delete API_KEY -p proj -c prd --yes",
            "gh secret remove NPM_TOKEN --repo o/r",
            "az keyvault secret purge --vault-name kv -n s",
            "pass rm -r work/db",
            "env VAULT_ADDR=https://v:8200 vault kv delete -mount=kv app/db",
        ),
        must_not_match=(
            "vault kv get secret/app",
            "vault kv metadata get secret/app",
            "vault secrets list",
            "op item get 'Prod DB' --fields username",
            "op item list --vault delete",
            "gh secret list",
            "doppler secrets delete --help",
            "az keyvault secret list --vault-name kv",
            "echo vault kv destroy secret/app",
            "pass show work/db",
        ),
    ),
)
