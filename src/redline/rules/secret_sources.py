"""Commands whose output is a secret without reading a key file (issue 18,
family 1): token commands (`gh auth token`, `gcloud auth
print-access-token`, `vault kv get`), secret-named variables printed
(`printenv GITHUB_TOKEN`, `echo $AWS_SECRET_ACCESS_KEY`), and dumps of the
whole environment. Where that output goes decides the rule: shown in the
transcript (`secret.shown`), written into a file that is committed
(`secret.into-git`), or sent away (`net.secret-exfil`)."""

from __future__ import annotations

import re

from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

_VARIABLE = lazy_regex(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
# Output formats that show a Kubernetes secret's data (`-o name` shows none).
_KUBE_SHOWS = ("yaml", "json", "jsonpath", "go-template", "template", "custom-columns")
_AWS_CONFIG_SECRET = lazy_regex(r"secret|token|password", re.IGNORECASE)


def secret_name(name: str) -> bool:
    """A variable name whose value is a secret (the scrubbing tiers' test)."""
    from redline.secrets import tier_of  # here: `echo $X` is rare among calls

    return tier_of(name, "") is not None


def secret_variables(raw: str) -> bool:
    """A word that expands a secret-named variable (`$GITHUB_TOKEN`, `${API_KEY}`)."""
    return "$" in raw and any(secret_name(n) for n in _VARIABLE.findall(raw))


def _words(inv: Invocation) -> list[str]:
    return [v for v in inv.values if not v.startswith("-")]


def _kube_secret(inv: Invocation) -> bool:
    words = _words(inv)
    if "get" not in words[:3]:  # `kubectl -n prod get ...`: the namespace comes first
        return False
    words = words[words.index("get") :]
    if len(words) < 2:
        return False
    kinds = words[1].lower().split(",")
    if not any(k.split("/")[0] in ("secret", "secrets") for k in kinds):
        return False
    values = inv.values
    for k, value in enumerate(values):
        if value in ("-o", "--output") and k + 1 < len(values):
            value = "-o=" + values[k + 1]
        if value.startswith(("-o", "--output=")):
            shown = value.split("=", 1)[-1] if "=" in value else value[2:]
            if shown.startswith(_KUBE_SHOWS):
                return True
    return False


def _aws(words: list[str], values: tuple[str, ...]) -> bool:
    pair = tuple(words[:2])
    if pair == ("configure", "get"):
        return len(words) > 2 and _AWS_CONFIG_SECRET.search(words[2]) is not None
    if pair == ("ssm", "get-parameter") or pair == ("ssm", "get-parameters"):
        return "--with-decryption" in values
    return pair in {
        ("configure", "export-credentials"), ("ecr", "get-login-password"),
        ("ecr-public", "get-login-password"), ("secretsmanager", "get-secret-value"),
        ("sts", "get-session-token"), ("sts", "assume-role"),
    }  # fmt: skip


def _gcloud(words: list[str]) -> bool:
    if words[:1] == ["auth"]:
        return any(w in ("print-access-token", "print-identity-token") for w in words[1:3])
    return words[:3] == ["secrets", "versions", "access"]


def _az(words: list[str]) -> bool:
    return words[:2] == ["account", "get-access-token"] or tuple(words[:3]) in {
        ("keyvault", "secret", "show"), ("keyvault", "secret", "download"),
        ("storage", "account", "keys"),
    }  # fmt: skip


def prints_token(inv: Invocation) -> bool:
    """A command that prints a credential it fetches or keeps."""
    name, values = inv.name, inv.values
    if any(v in ("-h", "--help", "help") for v in values):
        return False
    words = _words(inv)
    if name in ("gh", "glab"):
        if words[:2] == ["auth", "token"]:
            return True
        return words[:2] == ["auth", "status"] and ("-t" in values or "--show-token" in values)
    if name == "aws":
        return _aws(words, values)
    if name == "gcloud":
        return _gcloud(words)
    if name == "az":
        return _az(words)
    if name == "op":
        return words[:1] == ["read"] or (words[:2] == ["item", "get"] and "--reveal" in values)
    if name == "vault":
        return words[:2] in (["kv", "get"], ["print", "token"], ["token", "create"]) or (
            words[:1] == ["read"]
        )
    if name in ("kubectl", "oc"):
        return _kube_secret(inv)
    if name == "heroku":
        return words[:1] == ["auth:token"]
    if name in ("doppler", "infisical"):
        # `secrets download` writes the file an app reads: the designed use
        return words[:1] == ["secrets"] and words[1:2] in ([], ["get"], ["export"])
    if name == "sops":
        return any(v in ("-d", "--decrypt", "decrypt") for v in values)
    if name == "ansible-vault":
        return words[:1] == ["view"]
    if name == "bw":
        return words[:1] == ["get"]
    if name == "security":
        return words[:1] in (["find-generic-password"], ["find-internet-password"]) and (
            "-w" in values or "-g" in values
        )
    if name == "git":
        return words[:2] == ["credential", "fill"]
    return False


TOKEN_PROGRAMS = ("gh", "glab", "aws", "gcloud", "az", "op", "vault", "kubectl", "oc",
                  "heroku", "doppler", "infisical", "sops", "ansible-vault", "bw", "security",
                  "git")  # fmt: skip
PRINTERS = ("echo", "printf", "printenv")
DUMPERS = ("env", "printenv", "set", "export", "declare", "typeset")


def prints_variable(inv: Invocation) -> bool:
    """`echo $TOKEN`, `printf %s "$API_KEY"`, `printenv GITHUB_TOKEN`."""
    if inv.name == "printenv":
        return any(secret_name(v) for v in inv.values if not v.startswith("-"))
    return any(secret_variables(w.raw) for w in inv.argv[1:])


def prints_secret(inv: Invocation) -> bool:
    """Its output holds a secret: a token command or a secret variable printed."""
    if inv.name in PRINTERS and prints_variable(inv):
        return True
    return inv.name in TOKEN_PROGRAMS and prints_token(inv)


def dumps_environment(inv: Invocation) -> bool:
    from redline.rules.exfil import env_dump  # `exfil` imports this module

    return inv.name in DUMPERS and env_dump(inv)
