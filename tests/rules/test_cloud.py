"""Containers, clusters and cloud accounts."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Judge = Callable[..., tuple[str, tuple[str, ...]]]
K8S = ("ask", ("cloud.k8s-delete",))
IAC = ("ask", ("cloud.iac-destroy",))
RESOURCE = ("ask", ("cloud.resource-delete",))


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("docker system prune -af", ("ask", ("container.prune",))),
        ("docker -H tcp://x:2375 volume prune -f", ("ask", ("container.prune",))),
        ("docker volume rm db-data", ("ask", ("container.volume-remove",))),
        ("docker compose -p app down -v", ("ask", ("container.volume-remove",))),
        ("docker-compose down --volumes", ("ask", ("container.volume-remove",))),
        ("docker rm -f web", ("ask", ("container.force-remove",))),
        ("docker ps", ("allow", ())),
        ("docker compose down", ("allow", ())),
        ("docker rm web", ("allow", ())),
        ("docker run --rm alpine echo hi", ("allow", ())),
        ("kubectl delete pod web-0", K8S),
        ("kubectl -n prod --context=eu delete deploy api", K8S),
        ("kubectl drain node-1", K8S),
        ("helm uninstall release", K8S),
        ("kubectl get pods", ("allow", ())),
        ("kubectl delete pod x --dry-run=server", ("allow", ())),
        ("helm upgrade --install x chart", ("allow", ())),
        ("terraform destroy", IAC),
        ("terraform -chdir=envs/prod apply -destroy", IAC),
        ("pulumi destroy -s dev --yes", IAC),
        ("terraform plan", ("allow", ())),
        # issue 13: only a saved plan, which the owner could review, applies unasked
        ("terraform apply -auto-approve", ("ask", ("cloud.iac-apply",))),
        ("terraform apply tfplan", ("allow", ())),
        ("aws s3 rm s3://b/logs --recursive", ("ask", ("cloud.storage-delete",))),
        ("aws s3 rb s3://b --force", ("ask", ("cloud.storage-delete",))),
        ("aws s3 cp a s3://b/a", ("allow", ())),
        ("aws ec2 terminate-instances --instance-ids i-123", RESOURCE),
        ("aws cloudformation delete-stack --stack-name x", RESOURCE),
        ("gcloud compute instances delete vm --quiet", RESOURCE),
        ("az group delete --name rg --yes", RESOURCE),
        ("aws ec2 describe-instances", ("allow", ())),
        ("gcloud projects list", ("allow", ())),
        ("az vm list", ("allow", ())),
        ("echo kubectl delete ns prod", ("allow", ())),
    ],
)
def test_verdicts(judge: Judge, command: str, expected: tuple[str, tuple[str, ...]]) -> None:
    assert judge(command) == expected
