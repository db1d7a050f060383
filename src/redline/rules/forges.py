"""Forges and CI (GitHub's `gh`, GitLab's `glab`): deleting or archiving a
repository, changing its visibility, deleting releases, gists or
codespaces, disabling workflows, and API calls that delete or overwrite
(issue 13, family 9). A deleted repository takes its issues, releases and
wiki with it; a codespace, its uncommitted work."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

D = Severity.DANGEROUS

_GLOBAL = ("R", ("repo", "hostname"))
_DELETES = frozenset({"delete", "rm", "remove", "delete-asset"})
# Nouns whose `delete` (or its aliases) destroys something of the project.
# (`gh cache delete` is not among them: a build cache comes back on the next run.)
_NOUNS = frozenset({"repo", "release", "gist", "codespace", "cs", "issue", "project", "snippet",
                    "ci", "pipeline", "label", "run", "environment", "ssh-key", "gpg-key",
                    "deploy-key"})  # fmt: skip


def _forge_words(inv: Invocation) -> tuple[list[str], argv.Args]:
    args = argv.parse(inv.values, *_GLOBAL)
    return [o.lower() for o in args.operands], args


def _forge_delete(inv: Invocation, analysis: Analysis) -> bool:
    words, args = _forge_words(inv)
    if args.has("--help", "-h") or len(words) < 2:
        return False
    noun, verb = words[0], words[1]
    if noun == "repo" and verb in ("archive", "edit"):
        return verb == "archive" or args.has("--visibility")
    if noun == "repo" and verb == "deploy-key":  # `gh repo deploy-key delete ID`
        noun, verb = verb, words[2] if len(words) > 2 else ""
    if noun == "workflow":
        return verb == "disable"
    return noun in _NOUNS and verb in _DELETES


_WRITES = frozenset({"DELETE", "PATCH", "PUT"})
# GraphQL mutations that delete, archive or hand over: `deleteRepository`, `archiveRepository`...
_DELETING_MUTATION = lazy_regex(r"\b(?:delete|remove|archive|transfer|clear)[A-Z]\w*")


def _api_write(inv: Invocation, analysis: Analysis) -> bool:
    args = argv.parse(inv.values, "XRfFHpqt", ("method", "hostname", "field", "raw-field",
                                              "header", "input", "jq", "template", "preview",
                                              "cache"))  # fmt: skip
    if args.operands[:1] != ("api",):
        return False
    if args.operands[1:2] == ("graphql",):  # a mutation is sent with POST
        fields = args.value("-f", "-F", "--field", "--raw-field")
        return any(_DELETING_MUTATION.search(f) for f in fields if "mutation" in f)
    return any(m.strip().upper() in _WRITES for m in args.value("-X", "--method"))


FORGE_RULES: tuple[Rule, ...] = (
    rule(
        "forge.repo-delete",
        "vcs",
        D,
        "delete or archive a forge repository, change its visibility, delete releases, gists or "
        "codespaces, or disable a CI workflow",
        "ask the owner; view the repository or release (`gh repo view`) instead",
        programs=("gh", "glab"),
        test=_forge_delete,
        must_match=(
            "gh repo delete org/app --yes",
            "gh repo rm org/app",
            "gh repo archive org/app -y",
            "gh repo edit org/app --visibility public --accept-visibility-change-consequences",
            "gh -R o/r release delete v2.0 --cleanup-tag -y",
            "gh workflow disable ci.yml",
            "gh gist delete abc123",
            "gh codespace delete -c fuzzy-space",
            "glab repo delete group/proj --yes",
            "glab release delete v1",
            "gh repo deploy-key delete 1234",
            "gh ssh-key delete 42 --yes",
        ),
        must_not_match=(
            "gh repo view org/app",
            "gh release list",
            "gh workflow enable ci.yml",
            "gh repo edit --description 'new text'",
            "gh repo delete --help",
            "gh repo clone org/app",
            "gh cache delete --all",
            "gh repo deploy-key list",
            "glab repo view",
            "echo gh repo delete org/app",
        ),
    ),
    rule(
        "forge.api-write",
        "vcs",
        D,
        "a forge API call with `DELETE`, `PATCH` or `PUT`: deletes or overwrites repository "
        "settings, branches or protections",
        "read with `gh api` (GET) and ask the owner before changing the repository through the API",
        programs=("gh", "glab"),
        test=_api_write,
        must_match=(
            "gh api -X DELETE repos/o/r",
            "gh api --method DELETE /repos/o/r/git/refs/heads/main",
            "gh api -XPATCH repos/o/r -f default_branch=x",
            "gh api repos/o/r/branches/main/protection --method=DELETE",
            "gh api -X put repos/o/r/actions/permissions -F enabled=false",
            "glab api -X DELETE projects/1",
            'gh api graphql -f query=\'mutation { deleteRepository(input: {repositoryId: "R"}) '
            "{ clientMutationId } }'",
        ),
        must_not_match=(
            "gh api repos/o/r",
            "gh api -X GET repos/o/r/pulls",
            "gh api repos/o/r/issues -f title=x",
            "gh api -H 'X-Method: DELETE' repos/o/r",
            "gh api graphql -f query='query { viewer { login } }'",
            "gh api graphql -f query='mutation { addStar(input: {starrableId: \"R\"}) { x } }'",
            "echo gh api -X DELETE repos/o/r",
        ),
    ),
)
