"""What judging a file that runs later finds: the `later.*` rule ids and a
finding. Apart from the judge (`runs_later.judge`), which loads the file
formats: the rules that name them load on every call to a writing program."""

from __future__ import annotations

from redline.fasttuple import NamedTuple

HARDLINE = "later.hardline"
DANGEROUS = "later.dangerous"
SECRET_OUT = "later.secret-out"  # noqa: S105 - a rule id


class Finding(NamedTuple):
    """One reason the file is judged: the `later.*` rule, and what in the
    file's content gave it (the catalogue rule and the command)."""

    rule_id: str
    inner: str
    description: str
    command: str
