"""Deleting message queues, topics and streams or purging their messages:
Kafka, RabbitMQ, NATS (issue 13, family 9). Messages not yet consumed exist
nowhere else."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

D = Severity.DANGEROUS

_KAFKA_TOOLS = ("kafka-topics", "kafka-consumer-groups", "kafka-delete-records",
                "kafka-streams-application-reset", "kafka-configs")  # fmt: skip
_KAFKA_SCRIPTS = tuple(f"{tool}.sh" for tool in _KAFKA_TOOLS)
# `reset` and `delete_vhost` take every queue of the node or virtual host with them.
_RABBIT_VERBS = frozenset({"delete_queue", "purge_queue", "delete_vhost", "reset", "force_reset"})
_NATS_NOUNS = frozenset({"stream", "str", "kv", "object", "obj", "consumer", "con"})
_NATS_VERBS = frozenset({"rm", "delete", "del", "purge", "rmm"})


def _queue_delete(inv: Invocation, analysis: Analysis) -> bool:
    name = inv.name.removesuffix(".sh")
    values = inv.values
    if "--help" in values or "-h" in values:
        return False
    if name.startswith("kafka-"):
        if name in ("kafka-delete-records", "kafka-streams-application-reset"):
            return "--dry-run" not in values
        if name == "kafka-configs":  # a retention cut to nothing purges the topic
            return "--alter" in values and any("retention." in v for v in values)
        # `--reset-offsets` only moves offsets, and only with `--execute`
        return "--delete" in values or ("--reset-offsets" in values and "--execute" in values)
    if name == "celery":  # `celery -A app purge`: every waiting task
        return "purge" in argv.parse(values, "Ab", ("app", "broker", "workdir")).operands
    if name == "rq":
        return argv.parse(values, "uc", ("url", "config")).operands[:1] == ("empty",)
    operands = [o.lower() for o in argv.parse(values, "pnq", ("vhost", "node")).operands]
    if name == "rabbitmqctl":
        return bool(operands) and operands[0] in _RABBIT_VERBS
    if name == "rabbitmqadmin":
        return operands[:1] in (["delete"], ["purge"])
    # nats
    return len(operands) > 1 and operands[0] in _NATS_NOUNS and operands[1] in _NATS_VERBS


QUEUE_RULES: tuple[Rule, ...] = (
    rule(
        "data.queue-delete",
        "data",
        D,
        "delete a queue, topic or stream, purge the messages in it, or reset a broker",
        "list or describe the queue instead; ask the owner before deleting or purging it",
        programs=(
            *_KAFKA_TOOLS,
            *_KAFKA_SCRIPTS,
            "rabbitmqctl",
            "rabbitmqadmin",
            "nats",
            "celery",
            "rq",
        ),
        test=_queue_delete,
        must_match=(
            "kafka-topics.sh --bootstrap-server k:9092 --delete --topic orders",
            "/opt/kafka/bin/kafka-topics.sh --zookeeper z:2181 --topic t --delete",
            "kafka-delete-records --bootstrap-server k:9092 --offset-json-file off.json",
            "kafka-consumer-groups --bootstrap-server k --group g --reset-offsets --to-latest "
            "--all-topics --execute",
            "rabbitmqctl delete_queue orders",
            "rabbitmqctl -p /prod purge_queue orders",
            "rabbitmqadmin delete queue name=orders",
            "nats stream purge ORDERS -f",
            "kafka-configs --bootstrap-server k --alter --entity-type topics --entity-name t "
            "--add-config retention.ms=1",
            "celery -A app purge -f",
            "rq empty --all",
        ),
        must_not_match=(
            "kafka-topics --bootstrap-server k:9092 --list",
            "kafka-topics --bootstrap-server k:9092 --describe --topic orders",
            "kafka-consumer-groups --bootstrap-server k --group g --reset-offsets --to-latest "
            "--all-topics --dry-run",
            "rabbitmqctl list_queues",
            "rabbitmqctl delete_user bob",
            "kafka-configs --bootstrap-server k --describe --entity-type topics --entity-name t",
            "celery -A app inspect active",
            "rq info",
            "rabbitmqadmin list queues",
            "nats stream ls",
            "echo rabbitmqctl delete_queue x",
        ),
    ),
)
