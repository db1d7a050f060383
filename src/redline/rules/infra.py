"""Infrastructure changed without a reviewed plan: `terraform apply` of no
saved plan, `pulumi up --yes`, state entries removed; root shells on many
hosts at once (`ansible -m shell --become`); containers given the host
(`docker run --privileged`, the host's root mounted) (issue 13, family 9)."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv
from redline.rules.model import Rule, rule
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

D = Severity.DANGEROUS

_TERRAFORMS = ("terraform", "tofu", "terragrunt")
# Terraform's options that take a separate value (`-var k=v`): not a plan file.
_TF_VALUED = frozenset({"-var", "-var-file", "-target", "-replace", "-state", "-state-out",
                        "-backup", "-lock-timeout", "-parallelism", "-chdir"})  # fmt: skip


def _tf_words(inv: Invocation) -> list[str]:
    """Terraform's words without its options (`-x`, `-x=v`, `-x v`)."""
    words: list[str] = []
    values = inv.values
    k = 0
    while k < len(values):
        value = values[k]
        k += 1
        if value.startswith("-"):
            if value.lstrip("-") and "-" + value.lstrip("-") in _TF_VALUED and "=" not in value:
                k += 1
            continue
        words.append(value)
    return words


def _tf_help(inv: Invocation) -> bool:
    return any(v.lstrip("-") in ("help", "h") for v in inv.values)


def _iac_apply(inv: Invocation, analysis: Analysis) -> bool:
    if _tf_help(inv):
        return False
    if inv.name == "pulumi":
        args = argv.parse(inv.values, "sCm", ("stack", "cwd", "config", "message", "target"))
        up = args.operands[:1] in (("up",), ("update",))
        return up and args.has("-y", "--yes", "--skip-preview", "-f")
    words = _tf_words(inv)
    if words[:1] in (["run-all"], ["run"]):  # terragrunt runs the verb in every module
        words = words[1:]
    destroy = any(v.lstrip("-").partition("=")[0] == "destroy" for v in inv.values)
    # `terraform apply PLANFILE` applies the plan that was reviewed; no file, a fresh one
    return words[:1] == ["apply"] and len(words) == 1 and not destroy


def _state_remove(inv: Invocation, analysis: Analysis) -> bool:
    if _tf_help(inv):
        return False
    words = _tf_words(inv) if inv.name != "pulumi" else argv.parse(inv.values, "s").operands
    # `workspace delete` drops the workspace's whole state
    return tuple(words[:2]) in (
        ("state", "rm"), ("state", "push"), ("state", "delete"), ("workspace", "delete")
    )  # fmt: skip


_ANSIBLE_VALUES = ("iamuefltTBPcMk", ("inventory", "module-name", "args", "user", "extra-vars",
                                      "forks", "limit", "become-user", "become-method",
                                      "timeout", "connection", "module-path",
                                      "private-key"))  # fmt: skip
_SHELL_MODULES = frozenset({"shell", "command", "raw", "script"})


def _ansible_root_shell(inv: Invocation, analysis: Analysis) -> bool:
    args = argv.parse(inv.values, *_ANSIBLE_VALUES)
    if not args.has("-b", "--become") or args.has("-C", "--check"):
        return False
    modules = args.value("-m", "--module-name")
    module = modules[-1].rsplit(".", 1)[-1] if modules else "command"
    module_args = args.value("-a", "--args")
    # any module told `state=absent` deletes what it names (files, users, packages)
    if any("state=absent" in a for a in module_args):
        return True
    return module in _SHELL_MODULES and bool(module_args or module == "script")


_DOCKERS = ("docker", "podman", "nerdctl")
_RUN_VALUES = (
    "acehlmpuvw",
    ("add-host", "attach", "cap-add", "cap-drop", "cgroup-parent", "cidfile", "cpus",
     "cpuset-cpus", "cpu-shares", "device", "dns", "entrypoint", "env", "env-file", "expose",
     "gpus", "group-add", "hostname", "ip", "ipc", "label", "log-driver", "log-opt", "memory",
     "mount", "name", "network", "net", "pid", "platform", "publish", "pull", "restart",
     "runtime", "security-opt", "shm-size", "stop-signal", "sysctl", "tmpfs", "user",
     "ulimit", "userns", "uts", "volume", "volumes-from", "workdir", "context", "host"),
)  # fmt: skip
_HOST_DIRS = frozenset({"/", "/etc", "/root", "/boot", "/dev", "/usr", "/var", "/home", "/proc",
                        "/sys", "/var/run/docker.sock", "/run/docker.sock"})  # fmt: skip


def _mount_sources(args: argv.Args) -> list[str]:
    sources = [v.split(":", 1)[0] for v in args.value("-v", "--volume")]
    for spec in args.value("--mount"):
        for part in spec.split(","):
            key, _, value = part.partition("=")
            if key in ("source", "src"):
                sources.append(value)
    return [s.rstrip("/") or "/" for s in sources]


def _host_dir(source: str) -> bool:
    return source in _HOST_DIRS or paths.is_home_dir(source)


def _run_args(inv: Invocation) -> argv.Args | None:
    """The options of `docker run`/`create` (after global options), if it is one."""
    top = argv.parse(inv.values, "Hc", ("host", "context", "config", "log-level"),
                     stop_at_operand=True).rest  # fmt: skip
    if top[:1] == ("container",):
        top = top[1:]
    if top[:1] not in (("run",), ("create",)):
        return None
    return argv.parse(top[1:], *_RUN_VALUES, stop_at_operand=True)


def _privileged_container(inv: Invocation, analysis: Analysis) -> bool:
    args = _run_args(inv)
    if args is None:
        return False
    privileged = args.has("--privileged") and all(
        v.lower() != "false" for v in args.value("--privileged")
    )
    caps = {c.upper().removeprefix("CAP_") for c in args.value("--cap-add")}
    # the host's processes: seen, signalled, entered (`nsenter -t 1`)
    host = args.value("--pid") == ("host",) or "host" in args.value("--userns")
    return (
        privileged
        or bool(caps & {"ALL", "SYS_ADMIN"})
        or host
        or any(_host_dir(s) for s in _mount_sources(args))
    )


def _host_network(inv: Invocation, analysis: Analysis) -> bool:
    args = _run_args(inv)
    return args is not None and "host" in args.value("--network", "--net")


INFRA_RULES: tuple[Rule, ...] = (
    rule(
        "cloud.iac-apply",
        "cloud",
        D,
        "apply infrastructure changes that no one reviewed: `terraform apply` without a saved "
        "plan, `pulumi up --yes`",
        "save a plan (`terraform plan -out tfplan`), show it to the owner, then apply that file",
        programs=(*_TERRAFORMS, "pulumi"),
        test=_iac_apply,
        must_match=(
            "terraform apply -auto-approve",
            "terraform -chdir=infra apply -auto-approve -var env=prod",
            "tofu apply",
            "terragrunt run-all apply --terragrunt-non-interactive",
            "pulumi up --yes",
            "pulumi up -y --stack prod",
        ),
        must_not_match=(
            "terraform plan -out tfplan",
            "terraform apply tfplan",
            "terraform apply -help",
            "terraform apply -destroy",
            "pulumi preview",
            "pulumi up",
            "echo terraform apply -auto-approve",
        ),
    ),
    rule(
        "cloud.iac-state-remove",
        "cloud",
        D,
        "remove or overwrite entries of infrastructure state: the resources live on, unmanaged",
        "leave the state alone and ask the owner; `terraform state list` shows it",
        programs=(*_TERRAFORMS, "pulumi"),
        test=_state_remove,
        must_match=(
            "terraform state rm aws_s3_bucket.logs",
            "tofu state rm module.db",
            "terraform state push -force old.tfstate",
            "pulumi state delete urn:pulumi:prod::app::aws:s3/bucket:Bucket::logs",
            "terraform workspace delete -force prod",
        ),
        must_not_match=(
            "terraform state list",
            "terraform state show aws_s3_bucket.logs",
            "terraform state pull",
            "terraform workspace list",
            "echo terraform state rm x",
        ),
    ),
    rule(
        "priv.remote-root-shell",
        "privilege",
        D,
        "run shell commands as root on many hosts at once (`ansible -m shell --become`)",
        "run a reviewed playbook with `--check` first, or ask the owner",
        programs=("ansible",),
        test=_ansible_root_shell,
        must_match=(
            "ansible all -i hosts -m shell -a 'rm -rf /var/lib/app' --become",
            "ansible web -b -m command -a 'systemctl stop nginx'",
            "ansible db -b -a 'reboot'",
            "ansible all --become -m ansible.builtin.raw -a 'id'",
            "ansible all -b -m file -a 'path=/srv/data state=absent'",
        ),
        must_not_match=(
            "ansible all -m ping",
            "ansible web -m shell -a uptime",
            "ansible all -b -m ping",
            "ansible all -b -m file -a 'path=/srv/data state=absent' --check",
            "ansible-playbook site.yml --check",
        ),
    ),
    rule(
        "container.privileged",
        "container",
        D,
        "a container given the host: `--privileged`, all capabilities, or the host's root, "
        "system directories or docker socket mounted",
        "mount only the project directory and drop `--privileged`",
        programs=_DOCKERS,
        test=_privileged_container,
        must_match=(
            "docker run --privileged -it alpine sh",
            "docker run -v /:/host alpine chroot /host",
            "podman run --rm --mount type=bind,source=/,target=/mnt img",
            "docker run --cap-add=SYS_ADMIN img",
            "docker container create --volume=/var/run/docker.sock:/s img",
            "sudo docker -H unix:///x run -v /etc:/e:ro img",
            "docker run -v ~/:/h alpine sh",
            "docker run --pid=host alpine top",
        ),
        must_not_match=(
            "docker run --rm alpine echo hi",
            'docker run -v "$PWD":/src -w /src node:20 npm test',
            "docker run -v ~/work/app:/src img",
            "docker run --privileged=false img",
            "docker run img ls -v /:/x",
            "docker ps --privileged",
            "echo docker run --privileged img",
        ),
    ),
    rule(
        "container.host-network",
        "container",
        D,
        "a container on the host's network (`--net=host`): it reaches every port this machine "
        "listens on, the approval service's included",
        "publish the ports the container needs (`-p 8080:80`) on its own network",
        programs=_DOCKERS,
        test=_host_network,
        must_match=(
            "docker run --net=host alpine sh",
            "docker run --network host nginx",
            "podman run --net host alpine wget -qO- http://127.0.0.1:8765/",
            "docker create --network=host redis",
        ),
        must_not_match=(
            "docker run -p 8080:80 nginx",
            "docker run --network mynet alpine ping db",
            "docker network inspect host",
            "docker run alpine ping host",
            "echo docker run --net=host img",
        ),
    ),
)
