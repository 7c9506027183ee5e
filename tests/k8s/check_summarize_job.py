#!/usr/bin/python3
"""Checks scripts/k8s/summarize-job.yaml and scripts/k8s/Dockerfile for the
mistakes that only show on a cluster: an index Kubernetes never sets, a shard
count that disagrees with the Job's completions (files left unsummarized or
shards that never run), a variable the shell never gets, a mount of no
volume, no memory request, an image name the README's `docker build` does not
tag; a Dockerfile that does not build with the project's scripts or whose
image does not start tbprof.

    check_summarize_job.py manifest|dockerfile

Debian's python3 and python3-yaml (scripts/setup.sh); exits 1 naming each
problem found."""

import os
import re
import shlex
import sys

import yaml

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MANIFEST = os.path.join(ROOT, "scripts", "k8s", "summarize-job.yaml")
DOCKERFILE = os.path.join(ROOT, "scripts", "k8s", "Dockerfile")
README = os.path.join(ROOT, "README.md")
SHELLS = {"sh", "bash", "dash"}
# Set by the Job controller in every pod of an Indexed Job.
JOB_SET = {"JOB_COMPLETION_INDEX"}


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def readme_image():
    """The tag of the README's `docker build -f scripts/k8s/Dockerfile -t TAG .`."""
    for line in read(README).splitlines():
        words = shlex.split(line, comments=True) if "docker build" in line else []
        if words[:2] == ["docker", "build"] and "-f" in words and "-t" in words:
            dockerfile = words[words.index("-f") + 1]
            if dockerfile == "scripts/k8s/Dockerfile" and words[-1] == ".":
                return words[words.index("-t") + 1]
    return None


def memory_bytes(quantity):
    units = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    m = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(quantity))
    if not m or m.group(2) not in units:
        return None
    return float(m.group(1)) * units[m.group(2)]


def check_job_spec(job, problems):
    if job.get("apiVersion") != "batch/v1":
        problems.append(f"apiVersion is {job.get('apiVersion')!r}, not batch/v1")
    if job.get("kind") != "Job":
        problems.append(f"kind is {job.get('kind')!r}, not Job")
    spec = job.get("spec") or {}
    if spec.get("completionMode") != "Indexed":
        problems.append("spec.completionMode is not Indexed: pods get no JOB_COMPLETION_INDEX")
    completions, parallelism = spec.get("completions"), spec.get("parallelism", 1)
    if not isinstance(completions, int) or completions < 1:
        problems.append(f"spec.completions must be a positive integer, not {completions!r}")
        completions = None
    if not isinstance(parallelism, int) or parallelism < 1 or (completions and parallelism > completions):
        problems.append(f"spec.parallelism {parallelism!r} must be 1..completions ({completions})")
    if "backoffLimitPerIndex" not in spec and "backoffLimit" not in spec:
        problems.append("neither spec.backoffLimitPerIndex nor spec.backoffLimit: a failing shard retries 6 times")
    pod = (spec.get("template") or {}).get("spec") or {}
    if pod.get("restartPolicy") != "Never":
        problems.append(f"restartPolicy is {pod.get('restartPolicy')!r}, not Never")
    return spec, pod, completions


def shell_script(container, problems):
    """The container's command line as one string, and whether a shell runs it."""
    argv = list(container.get("command") or []) + list(container.get("args") or [])
    if not argv:
        problems.append("the container has no command: the image's entrypoint would run without --shard")
        return "", False
    if os.path.basename(argv[0]) in SHELLS and len(argv) >= 3 and argv[1] == "-c":
        return argv[2], True
    return " ".join(argv), False


def check_command(container, completions, mounts, problems):
    script, by_shell = shell_script(container, problems)
    if not re.search(r"(^|[\s;&|])(exec\s+)?tbprof\s+summarize\s", script):
        problems.append(f"the command does not run `tbprof summarize`: {script!r}")
    shard = re.search(r"--shard[ =]\"?(\$JOB_COMPLETION_INDEX|\$\{JOB_COMPLETION_INDEX\}|\$\(JOB_COMPLETION_INDEX\))/(\d+)", script)
    if not shard:
        problems.append(f"--shard is not $JOB_COMPLETION_INDEX/N: {script!r}")
    else:
        if shard.group(1) != "$(JOB_COMPLETION_INDEX)" and not by_shell:
            problems.append("$JOB_COMPLETION_INDEX is shell syntax but no shell (sh -c) runs the command")
        if completions and int(shard.group(2)) != completions:
            problems.append(f"--shard's N is {shard.group(2)} but completions is {completions}: shards would be lost")
    declared = {e.get("name") for e in container.get("env") or []} | JOB_SET
    used = set(re.findall(r"\$\{?([A-Z_][A-Z0-9_]*)", script)) if by_shell else set()
    used |= set(re.findall(r"\$\(([A-Z_][A-Z0-9_]*)\)", script))
    for name in sorted(used - declared):
        problems.append(f"the command uses ${name}, which the container's env does not set")
    path = re.search(r"summarize\s+\"?([^\s\"]+)", script)
    if path and not any(path.group(1) == m or path.group(1).startswith(m.rstrip("/") + "/") for m in mounts):
        problems.append(f"the run {path.group(1)!r} is under no volumeMount ({sorted(mounts)})")


def check_volumes(container, pod, problems):
    volumes = {v.get("name"): v for v in pod.get("volumes") or []}
    mounts = {}
    for m in container.get("volumeMounts") or []:
        if m.get("name") not in volumes:
            problems.append(f"volumeMount {m.get('name')!r} names no declared volume ({sorted(volumes)})")
        elif "persistentVolumeClaim" in volumes[m["name"]]:
            if not (volumes[m["name"]]["persistentVolumeClaim"] or {}).get("claimName"):
                problems.append(f"volume {m['name']!r} has no claimName")
            mounts[m.get("mountPath", "")] = m["name"]
    if not mounts:
        problems.append("no PersistentVolumeClaim is mounted: the pods would not share the logdir")
    return mounts


def check_resources(container, problems):
    resources = container.get("resources") or {}
    request = (resources.get("requests") or {}).get("memory")
    limit = (resources.get("limits") or {}).get("memory")
    if request is None or memory_bytes(request) is None:
        problems.append(f"no valid memory request (resources.requests.memory: {request!r})")
    if limit is None or memory_bytes(limit) is None:
        problems.append(f"no valid memory limit (resources.limits.memory: {limit!r})")
    elif request is not None and memory_bytes(request) and memory_bytes(request) > memory_bytes(limit):
        problems.append(f"memory request {request} is over the limit {limit}")
    for e in container.get("env") or []:
        ref = (e.get("valueFrom") or {}).get("resourceFieldRef")
        if ref and ref.get("containerName", container.get("name")) != container.get("name"):
            problems.append(f"env {e.get('name')} reads the resources of container {ref.get('containerName')!r}")


def check_manifest():
    problems = []
    docs = [d for d in yaml.safe_load_all(read(MANIFEST)) if d is not None]
    if len(docs) != 1:
        return [f"{MANIFEST} holds {len(docs)} objects, not one Job"]
    spec, pod, completions = check_job_spec(docs[0], problems)
    containers = pod.get("containers") or []
    if len(containers) != 1:
        return problems + [f"the pod has {len(containers)} containers, not one"]
    container = containers[0]
    mounts = check_volumes(container, pod, problems)
    check_command(container, completions, mounts, problems)
    check_resources(container, problems)
    for rule in (spec.get("podFailurePolicy") or {}).get("rules") or []:
        named = (rule.get("onExitCodes") or {}).get("containerName")
        if named is not None and named != container.get("name"):
            problems.append(f"a podFailurePolicy rule names container {named!r}, not {container.get('name')!r}")
    image = readme_image()
    if image is None:
        problems.append("README.md has no `docker build -f scripts/k8s/Dockerfile -t IMAGE .` line")
    elif container.get("image") != image:
        problems.append(f"the Job runs image {container.get('image')!r}, the README builds {image!r}")
    return problems


def dockerfile_stages():
    """[(base image, stage name, [(instruction, arguments)])] with continuations joined."""
    text = re.sub(r"\\\n", " ", "\n".join(l for l in read(DOCKERFILE).splitlines() if not l.lstrip().startswith("#")))
    stages = []
    for line in text.splitlines():
        if not line.strip():
            continue
        instruction, _, rest = line.strip().partition(" ")
        instruction = instruction.upper()
        if instruction == "FROM":
            words = rest.split()
            name = words[2] if len(words) >= 3 and words[1].lower() == "as" else None
            stages.append((words[0], name, []))
        elif stages:
            stages[-1][2].append((instruction, rest.strip()))
    return stages


def check_dockerfile():
    problems = []
    stages = dockerfile_stages()
    if len(stages) < 2:
        return [f"{DOCKERFILE} has {len(stages)} stages, not a build stage and a runtime stage"]
    (build_base, build_name, build), (run_base, _, runtime) = stages[0], stages[-1]
    if build_base != "debian:bookworm":
        problems.append(f"the build stage is FROM {build_base}, not debian:bookworm")
    if run_base not in ("debian:bookworm", "debian:bookworm-slim"):
        problems.append(f"the runtime stage is FROM {run_base}, not Debian bookworm (the libraries copied are bookworm's)")
    runs = " ; ".join(args for ins, args in build if ins == "RUN")
    for script in ("scripts/setup.sh", "scripts/build.sh"):
        if script not in runs:
            problems.append(f"the build stage does not run {script}")
    for script, flags in re.findall(r"(scripts/\w+\.sh)((?:\s+--[\w-]+)*)", runs):
        for flag in flags.split():
            if flag not in read(os.path.join(ROOT, script)):
                problems.append(f"{script} knows no {flag}")
    if not any(ins == "COPY" and args.split()[:1] == ["."] for ins, args in build):
        problems.append("the build stage does not COPY the repository (COPY . ...)")
    copies = [args for ins, args in runtime if ins == "COPY" and args.startswith(f"--from={build_name}")]
    if not build_name or not any(re.search(r"/tbprof\s+\S*/tbprof$", c) for c in copies):
        problems.append("the runtime stage does not copy the tbprof binary from the build stage")
    if any(ins == "RUN" and re.search(r"apt-get install|scripts/(setup|build)\.sh", args) for ins, args in runtime):
        problems.append("the runtime stage installs or builds: it should hold only the binary and its libraries")
    entry = [args for ins, args in runtime if ins == "ENTRYPOINT"]
    if not entry or not re.fullmatch(r'\["(/usr/local/bin/)?tbprof"\]', entry[-1]):
        problems.append(f"the runtime ENTRYPOINT is {entry[-1] if entry else None!r}, not [\"tbprof\"]")
    ignore_file = os.path.join(ROOT, ".dockerignore")
    ignored = [l.strip() for l in read(ignore_file).splitlines()] if os.path.exists(ignore_file) else []
    if not any(re.fullmatch(r"/?build\*?/?", p) for p in ignored):
        problems.append(".dockerignore does not leave out build folders: COPY . would send them to the image")
    return problems


def main():
    checks = {"manifest": check_manifest, "dockerfile": check_dockerfile}
    if len(sys.argv) != 2 or sys.argv[1] not in checks:
        print(f"usage: {sys.argv[0]} {'|'.join(checks)}", file=sys.stderr)
        return 2
    problems = checks[sys.argv[1]]()
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    if not problems:
        print(f"ok: {sys.argv[1]}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
