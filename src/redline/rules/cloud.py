"""Containers, clusters and cloud accounts: commands that delete volumes,
workloads, whole stacks or buckets (F-RULES-2)."""

from __future__ import annotations

import itertools

from redline.decision import Severity
from redline.rules import argv
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

D = Severity.DANGEROUS

DOCKERS = ("docker", "podman", "nerdctl")
_DOCKER_GLOBAL = ("Hcl", ("host", "context", "config", "log-level", "tlscacert", "tlscert",
                          "tlskey", "url", "connection", "root", "runroot"))  # fmt: skip
_COMPOSE_GLOBAL = ("fp", ("file", "project-name", "project-directory", "env-file", "profile",
                          "ansi", "parallel", "progress"))  # fmt: skip


def _docker(inv: Invocation) -> tuple[tuple[str, ...], argv.Args]:
    """The command path (`("volume", "rm")`) and its arguments."""
    rest = argv.parse(inv.values, *_DOCKER_GLOBAL, stop_at_operand=True).rest
    if inv.name in ("docker-compose", "podman-compose"):
        rest = ("compose", *rest)
    if rest[:1] == ("compose",):
        inner = argv.parse(rest[1:], *_COMPOSE_GLOBAL, stop_at_operand=True).rest
        return ("compose", *inner[:1]), argv.parse(inner[1:])
    if rest[:1] in (("container",), ("volume",), ("system",), ("image",)):
        return tuple(rest[:2]), argv.parse(rest[2:])
    return tuple(rest[:1]), argv.parse(rest[1:])


_PRUNES = frozenset({("system", "prune"), ("volume", "prune"), ("container", "prune")})


def _container_prune(inv: Invocation, analysis: Analysis) -> bool:
    return _docker(inv)[0] in _PRUNES


def _volume_remove(inv: Invocation, analysis: Analysis) -> bool:
    path, args = _docker(inv)
    if path in (("volume", "rm"), ("volume", "remove")):
        return True
    return path == ("compose", "down") and args.has("-v", "--volumes")


def _force_remove(inv: Invocation, analysis: Analysis) -> bool:
    path, args = _docker(inv)
    return path in (("rm",), ("container", "rm")) and args.has("-f", "--force")


_KUBE_VALUES = ("nsv", ("namespace", "context", "cluster", "kubeconfig", "server", "user",
                        "token", "as", "request-timeout", "kube-context"))  # fmt: skip


def _kube_delete(inv: Invocation, analysis: Analysis) -> bool:
    values = inv.values
    if inv.name in ("k3s", "microk8s"):
        values = values[1:] if values[:1] == ("kubectl",) else ()
    args = argv.parse(values, *_KUBE_VALUES)
    verb = args.operands[:1]
    if args.value("--dry-run") and args.value("--dry-run")[-1] in ("client", "server"):
        return False
    if inv.name == "helm":
        return verb in (("uninstall",), ("delete",), ("del",), ("un",)) and not args.has(
            "--dry-run"
        )
    if verb == ("scale",):  # to zero replicas: the workload stops serving
        pairs = itertools.pairwise(values)
        return "--replicas=0" in values or any(p == ("--replicas", "0") for p in pairs)
    if verb == ("replace",):  # `--force` deletes the objects, then creates them again
        return args.has("--force")
    if verb == ("apply",):  # `--prune` deletes what the files no longer name
        return args.has("--prune")
    return verb in (("delete",), ("drain",))


_TERRAFORMS = ("terraform", "tofu", "terragrunt", "cdktf")


def _iac_destroy(inv: Invocation, analysis: Analysis) -> bool:
    values = [v for v in inv.values if not v.startswith("-chdir")]
    args = argv.parse(values, "s", ("stack", "cwd"))
    verb = tuple(o.lower() for o in args.operands[:2])
    if inv.name in _TERRAFORMS:
        if verb[:1] in (("run-all",), ("run",)):  # terragrunt runs the verb in every module
            verb = verb[1:]
        return verb[:1] == ("destroy",) or (
            verb[:1] == ("apply",) and args.has("-destroy", "--destroy", "-d")
        )
    if inv.name == "pulumi":
        if args.has("--preview-only"):
            return False
        return verb[:1] in (("destroy",), ("down",)) or verb == ("stack", "rm")
    if inv.name in ("cdk", "sls", "serverless"):
        return verb[:1] in (("destroy",), ("remove",))
    return False


_AWS_VALUES = ("", ("profile", "region", "output", "endpoint-url", "query", "color",
                    "ca-bundle", "cli-read-timeout", "cli-connect-timeout"))  # fmt: skip


def _storage_delete(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name == "aws":
        args = argv.parse(inv.values, *_AWS_VALUES)
        path = tuple(args.operands[:2])
        if args.has("--dryrun"):
            return False
        if path == ("s3", "rm"):
            return args.has("--recursive")
        if path == ("s3", "rb"):
            return args.has("--force")
        return path == ("s3", "sync") and args.has("--delete")
    args = argv.parse(inv.values)
    words = tuple(o.lower() for o in args.operands)
    if inv.name == "gsutil":
        if words[:1] == ("rsync",):  # `-d` after `rsync` mirrors deletions (before it: debug)
            start = next(k for k, v in enumerate(inv.values) if v.lower() == "rsync")
            return "-d" in inv.values[start:]
        # a wildcard (`gs://b/**`) removes every object it matches, as `-r` does
        every = args.has("-r", "-R") or any("*" in w for w in words[1:])
        return words[:1] == ("rb",) or (words[:1] == ("rm",) and every)
    if inv.name == "gcloud":
        if words[:2] == ("storage", "rsync"):
            return args.has("--delete-unmatched-destination-objects")
        if words[:3] == ("storage", "buckets", "delete"):
            return True
        every = args.has("-r", "--recursive") or any("*" in w for w in words[2:])
        return words[:2] == ("storage", "rm") and every
    if inv.name == "rclone":
        deletes = words[:1] in (("purge",), ("delete",), ("deletefile",))
        return deletes and not args.has("-n", "--dry-run")
    return False


_DELETE_VERBS = frozenset({"delete", "destroy", "pg:reset"})
# CLIs whose command path ends in a verb: `gcloud compute instances delete NAME`.
_CLOUD_CLIS = frozenset({"gcloud", "az", "doctl", "hcloud", "linode-cli", "scw", "oci",
                         "ibmcloud", "fly", "flyctl", "heroku", "vercel", "netlify", "eksctl",
                         "supabase", "railway", "neonctl", "pscale", "turso",
                         "firebase"})  # fmt: skip


# Deleting one record, message or object by its key is the cloud's `DELETE ...
# WHERE id = ...`: everyday work, as in SQL (`data.sql-delete-all` asks only
# without a WHERE) and object stores (`cloud.storage-delete`).
_RECORD_DELETES = frozenset({"delete-item", "delete-message", "delete-message-batch",
                             "delete-object", "delete-attributes"})  # fmt: skip
_AZ_RECORDS = frozenset({"blob", "entity", "message", "file"})


def _resource_delete(inv: Invocation, analysis: Analysis) -> bool:
    if inv.name == "aws":
        args = argv.parse(inv.values, *_AWS_VALUES)
        operation = args.operands[1].lower() if len(args.operands) > 1 else ""
        previews = args.has("--dry-run", "--generate-cli-skeleton")
        if operation in _RECORD_DELETES or previews:
            return False
        # `delete-`, `batch-delete-`, `terminate-`, `purge-` (every message of a
        # queue), `schedule-key-deletion` (what the key encrypted goes with it)
        words = operation.split("-")
        return (
            "delete" in words
            or words[0] in ("terminate", "purge")
            or operation == "schedule-key-deletion"
        )
    words = [o.lower() for o in argv.parse(inv.values).operands]
    if inv.name == "gcloud" and words[:1] == ["storage"]:
        return False  # `cloud.storage-delete` judges buckets and objects
    if inv.name in ("vercel", "netlify"):
        return words[:1] in (["remove"], ["rm"], ["sites:delete"])
    if (
        inv.name == "az"
        and words[:1] == ["storage"]
        and words[1:3] in ([record, "delete"] for record in _AZ_RECORDS)
    ):
        return False
    # heroku's `apps:destroy`, `addons:destroy`; firebase's `functions:delete`...
    return any(
        w in _DELETE_VERBS or w.startswith("delete-") or w.endswith((":destroy", ":delete"))
        for w in words[:6]
    )


CLOUD_RULES: tuple[Rule, ...] = (
    rule(
        "container.prune",
        "container",
        D,
        "prune stopped containers, unused volumes or all unused docker data",
        "remove the specific containers or images you created, by name",
        programs=(*DOCKERS,),
        test=_container_prune,
        must_match=(
            "docker system prune -af",
            "docker volume prune",
            "sudo podman system prune",
            "docker --context prod container prune -f",
            "bash -c 'docker system prune --volumes'",
        ),
        must_not_match=(
            "docker ps",
            "docker image prune",
            "docker system df",
            "echo docker system prune",
            "docker network prune",
        ),
    ),
    rule(
        "container.volume-remove",
        "container",
        D,
        "delete container volumes and the data in them",
        "keep the volumes (`docker compose down` without `-v`); back them up before removing",
        programs=(*DOCKERS, "docker-compose", "podman-compose"),
        test=_volume_remove,
        must_match=(
            "docker volume rm pgdata",
            "docker compose down -v",
            "docker-compose down --volumes",
            "docker compose -f prod.yml down -v",
            "podman volume remove x",
        ),
        must_not_match=(
            "docker compose down",
            "docker volume ls",
            "docker compose up -d",
            "docker run -v data:/data img",
            "echo docker volume rm x",
        ),
    ),
    rule(
        "container.force-remove",
        "container",
        D,
        "force-remove running containers",
        "stop the container first (`docker stop NAME`), then remove it by name",
        programs=DOCKERS,
        test=_force_remove,
        must_match=(
            "docker rm -f web",
            "docker container rm --force db",
            "sudo docker rm -fv x",
            "docker rm -f $(docker ps -aq)",
        ),
        must_not_match=(
            "docker rm web",
            "docker rmi -f img",
            "docker ps -a",
            "docker run --rm -it alpine",
            "echo docker rm -f x",
        ),
    ),
    rule(
        "cloud.k8s-delete",
        "cloud",
        D,
        "delete Kubernetes resources, drain a node, scale a workload to zero or uninstall a Helm "
        "release",
        "show what would change with `--dry-run=client`, then ask the owner",
        programs=("kubectl", "oc", "k3s", "microk8s", "helm"),
        test=_kube_delete,
        must_match=(
            "kubectl delete pod web-1",
            "kubectl -n prod delete deployment api",
            "kubectl drain node-3 --ignore-daemonsets",
            "helm uninstall my-release",
            "oc delete project demo",
            "microk8s kubectl delete ns x",
            "kubectl --context=prod delete -f app.yaml",
            "kubectl scale deploy api --replicas=0",
            "kubectl -n prod scale --replicas 0 statefulset/db",
            "kubectl replace --force -f deploy.yaml",
            "kubectl apply --prune -l app=web -f k8s/",
        ),
        must_not_match=(
            "kubectl get pods",
            "kubectl describe pod delete",
            "kubectl delete pod x --dry-run=client",
            "helm list",
            "helm install x y",
            "echo kubectl delete pod x",
            "kubectl scale deploy api --replicas=3",
            "kubectl apply -f k8s/",
            "kubectl replace -f deploy.yaml",
        ),
    ),
    rule(
        "cloud.iac-destroy",
        "cloud",
        D,
        "destroy infrastructure managed as code (`terraform destroy`, `pulumi destroy`)",
        "run `terraform plan -destroy` (or the tool's preview) and ask the owner",
        programs=(*_TERRAFORMS, "pulumi", "cdk", "sls", "serverless"),
        test=_iac_destroy,
        must_match=(
            "terraform destroy",
            "terraform apply -destroy -auto-approve",
            "tofu destroy",
            "terraform -chdir=infra destroy",
            "pulumi destroy --yes",
            "cdk destroy --force",
            "pulumi stack rm dev",
            "terragrunt run-all destroy",
        ),
        must_not_match=(
            "terraform plan -destroy",
            "terraform apply",
            "pulumi preview",
            "pulumi destroy --preview-only",
            "echo terraform destroy",
            "terraform state list",
        ),
    ),
    rule(
        "cloud.storage-delete",
        "cloud",
        D,
        "delete a bucket or every object under a storage prefix",
        "delete the specific objects by key, or ask the owner",
        programs=("aws", "gsutil", "gcloud", "rclone"),
        test=_storage_delete,
        must_match=(
            "aws s3 rm s3://bucket/ --recursive",
            "aws s3 rb s3://bucket --force",
            "aws --profile prod s3 sync . s3://site --delete",
            "gsutil -m rm -r gs://b/x",
            "gcloud storage rm --recursive gs://b",
            "rclone purge remote:backups",
            "gsutil -m rsync -d -r empty gs://bucket",
            "gcloud storage rsync --delete-unmatched-destination-objects -r . gs://b",
            "gsutil -m rm -a 'gs://assets/**'",
            "gcloud storage buckets delete gs://assets",
        ),
        must_not_match=(
            "aws s3 ls",
            "aws s3 cp f s3://b/f",
            "aws s3 rm s3://b/one.txt",
            "aws s3 sync . s3://site --delete --dryrun",
            "gsutil ls gs://b",
            "rclone copy a remote:b",
            "rclone --dry-run purge remote:x",
            "echo aws s3 rb --force",
            "gsutil -d rsync -r src gs://b",
            "gcloud storage buckets list",
        ),
    ),
    rule(
        "cloud.resource-delete",
        "cloud",
        D,
        "delete or terminate cloud resources",
        "ask the owner before deleting cloud resources; list them first",
        programs=("aws", *_CLOUD_CLIS),
        test=_resource_delete,
        must_match=(
            "aws ec2 terminate-instances --instance-ids i-1",
            "az group delete -n rg",
            "gcloud compute instances delete vm-1 --zone us-central1-a",
            "aws --region eu-west-1 rds delete-db-instance --db-instance-identifier x",
            "doctl compute droplet delete web",
            "heroku apps:destroy myapp",
            "fly apps destroy app",
            "aws kms schedule-key-deletion --key-id k",
            "aws sqs purge-queue --queue-url u",
            "eksctl delete cluster --name prod",
            "firebase functions:delete api --force",
            "aws ecr batch-delete-image --repository-name r --image-ids imageTag=x",
            "heroku addons:destroy heroku-postgresql -a app",
        ),
        must_not_match=(
            "aws ec2 describe-instances",
            "gcloud compute instances list",
            "az group list",
            "heroku addons:create heroku-postgresql",
            "aws s3 rm s3://b/k",
            "echo gcloud projects delete x",
            "aws ec2 terminate-instances --dry-run --instance-ids i-1",
            "aws ses delete-receipt-rule --rule-set-name x --generate-cli-skeleton",
            "doctl auth remove --context old",
            "aws dynamodb delete-item --table-name t --key k",
            "aws ec2 describe-deletion-protection",
            "aws sqs delete-message --queue-url u --receipt-handle h",
            "az storage blob delete --container-name c --name b",
        ),
    ),
)
