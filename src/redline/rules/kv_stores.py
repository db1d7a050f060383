"""Deleting keys from the coordination stores a cluster keeps its state in:
etcd and Consul's KV (attack round of issue 13, family 9). A range
or prefix delete takes every service's configuration, locks and leader
records with it; reads (`get`, `ls`, `watch`) stay allowed."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

D = Severity.DANGEROUS

# etcd v3 (`del`), v2 (`rm`, `rmdir`), and the maintenance verbs that drop history.
_ETCD_VERBS = frozenset({"del", "rm", "rmdir", "delete", "defrag-delete"})
_ETCD_VALUES = ("endpoints", "cacert", "cert", "key", "user", "password", "command-timeout",
                "dial-timeout", "write-out", "discovery-srv")  # fmt: skip


def _kv_delete(inv: Invocation, analysis: Analysis) -> bool:
    values = inv.values
    if "--help" in values or "-h" in values:
        return False
    if inv.name == "etcdctl":
        operands = argv.parse(values, "w", _ETCD_VALUES).operands
        verbs = tuple(o.lower() for o in operands)
        return bool(verbs) and (
            verbs[0] in _ETCD_VERBS or verbs[:2] in (("lease", "revoke"), ("compaction", "0"))
        )
    words = tuple(v for v in values if not v.startswith("-"))
    return words[:2] == ("kv", "delete")


KV_STORE_RULES: tuple[Rule, ...] = (
    rule(
        "data.kv-delete",
        "data",
        D,
        "delete keys from a cluster's coordination store (etcd, Consul KV)",
        "read the keys (`etcdctl get`, `consul kv get`) and ask the owner before deleting",
        programs=("etcdctl", "consul"),
        test=_kv_delete,
        must_match=(
            "etcdctl del --prefix ''",
            "etcdctl --endpoints http://10.0.0.1:2379 del /config/app",
            "ETCDCTL_API=2 etcdctl rm --recursive /registry",
            "consul kv delete -recurse",
            "consul kv delete app/config",
        ),
        must_not_match=(
            "etcdctl get --prefix /config",
            "etcdctl member list",
            "consul kv get -recurse app/",
            "consul members",
            "etcdctl del --help",
        ),
    ),
)
