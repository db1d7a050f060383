"""Pods read as the containers they start (issue 18, family 2).

`kubectl run --overrides=JSON` and `kubectl apply -f - <<EOF` (a Pod, or a
workload's pod template) start containers that may mount host paths
(`hostPath`), share the host's network or processes, or run privileged. Each
container is spelled back as a `docker run` line
(`redline.shell.container_lines`) and analysed as one.
"""

from redline.shell.container_lines import Container, command_text, run_line, strings

# Where a workload keeps its pod spec.
_TEMPLATE_KINDS = frozenset({"Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "Job",
                             "ReplicationController"})  # fmt: skip


def manifest_lines(text: str) -> str:
    """The `docker run` lines of the pods a manifest text (YAML or JSON,
    several documents) starts."""
    import yaml  # here, not at the top: only a manifest needs it

    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return ""
    lines: list[str] = []
    for document in documents:
        for item in _items(document):
            lines += pod_lines(_pod_spec(item))
    return "\n".join(lines)


def overrides_lines(overrides: str, image: str, command: tuple[str, ...]) -> str:
    """`kubectl run NAME --image=IMG --overrides=JSON -- CMD`."""
    import json

    try:
        document = json.loads(overrides) if overrides else {}
    except ValueError:
        return ""
    spec = document.get("spec") if isinstance(document, dict) else None
    if not isinstance(spec, dict):
        spec = {}
    if command and isinstance(spec.get("containers"), list) and spec["containers"]:
        first = spec["containers"][0]
        if isinstance(first, dict) and "command" not in first:
            first = {**first, "command": list(command)}
            spec = {**spec, "containers": [first, *spec["containers"][1:]]}
    if not spec.get("containers"):
        spec = {**spec, "containers": [{"image": image, "command": list(command)}]}
    return "\n".join(pod_lines(spec))


def _items(document: object) -> list[dict[str, object]]:
    if not isinstance(document, dict):
        return []
    if document.get("kind") == "List" and isinstance(document.get("items"), list):
        return [i for i in document["items"] if isinstance(i, dict)]
    return [document]


def _pod_spec(item: dict[str, object]) -> dict[str, object]:
    kind = item.get("kind")
    spec = item.get("spec")
    if not isinstance(spec, dict):
        return {}
    if kind == "CronJob":
        job = spec.get("jobTemplate")
        spec = job.get("spec") if isinstance(job, dict) else None
        kind = "Job"
    if kind in _TEMPLATE_KINDS and isinstance(spec, dict):
        template = spec.get("template")
        spec = template.get("spec") if isinstance(template, dict) else None
    return spec if isinstance(spec, dict) else {}


def pod_lines(spec: dict[str, object]) -> list[str]:
    host_paths: dict[str, str] = {}
    volumes = spec.get("volumes")
    for volume in volumes if isinstance(volumes, list) else ():
        if isinstance(volume, dict) and isinstance(volume.get("hostPath"), dict):
            host_paths[str(volume.get("name"))] = str(volume["hostPath"].get("path", ""))
    containers = spec.get("containers")
    lines = []
    for box in containers if isinstance(containers, list) else ():
        if not isinstance(box, dict):
            continue
        mounts = box.get("volumeMounts")
        binds = tuple(
            (host_paths[str(m.get("name"))], str(m.get("mountPath", "")))
            for m in (mounts if isinstance(mounts, list) else ())
            if isinstance(m, dict) and str(m.get("name")) in host_paths
        )
        context = box.get("securityContext")
        added = context.get("capabilities") if isinstance(context, dict) else None
        container = Container(
            image=str(box.get("image") or "image"),
            binds=binds,
            privileged=isinstance(context, dict) and context.get("privileged") is True,
            host_pid=spec.get("hostPID") is True,
            host_network=spec.get("hostNetwork") is True,
            caps=strings(added.get("add")) if isinstance(added, dict) else (),
            workdir=str(box["workingDir"]) if isinstance(box.get("workingDir"), str) else None,
            text=command_text(box.get("command"), box.get("args")) or None,
        )
        lines.append(run_line(container))
    return lines
