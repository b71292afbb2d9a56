"""deploy/ as written: every command it runs is a real `sediment` command with real
options, every SEDIMENT_ variable is a setting with a valid value, and the compose
file and the Kubernetes manifests hang together. No Docker engine or cluster is
available here, so this is what can be checked without running them."""

import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
import typer.main
import yaml

from sediment.api.monitoring import ops
from sediment.cli import app
from sediment.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COMPOSE = DEPLOY / "docker-compose.yml"
K8S = DEPLOY / "k8s"
PROCFILE = ROOT / "Procfile"
MIN_QDRANT = (1, 19)


def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def manifests() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in sorted(K8S.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    return docs


def of_kind(kind: str) -> list[dict[str, Any]]:
    return [d for d in manifests() if d["kind"] == kind]


def containers() -> Iterator[tuple[str, dict[str, Any]]]:
    for d in of_kind("Deployment"):
        for c in d["spec"]["template"]["spec"]["containers"]:
            yield d["metadata"]["name"], c


def sediment_commands() -> Iterator[tuple[str, list[str]]]:
    """(where, argv) of every `sediment ...` the deployment files run."""
    for name, svc in compose()["services"].items():
        yield f"compose {name}", [str(a) for a in svc.get("command", [])]
        test = svc.get("healthcheck", {}).get("test", [])
        yield f"compose {name} healthcheck", [str(a) for a in test if a not in ("CMD", "CMD-SHELL")]
    for deployment, c in containers():
        yield f"k8s {deployment}", [*c.get("command", []), *c.get("args", [])]
        for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
            if "exec" in c.get(probe, {}):
                yield f"k8s {deployment} {probe}", c[probe]["exec"]["command"]
    for line in PROCFILE.read_text(encoding="utf-8").splitlines():
        role, command = line.split(":", 1)
        expanded = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", command)
        yield f"Procfile {role}", shlex.split(expanded)
    cmd = re.search(r"^CMD (\[.*\])$", (DEPLOY / "Dockerfile").read_text(), re.M)
    assert cmd is not None
    yield "Dockerfile CMD", yaml.safe_load(cmd.group(1))


def check_command(argv: list[str]) -> None:
    """Parse argv as `sediment` would (unknown commands, options or bad values raise)."""
    assert argv[0] == "sediment", argv
    group = typer.main.get_command(app)
    ctx = group.context_class(group, info_name="sediment")
    name, command, rest = group.resolve_command(ctx, argv[1:])
    assert command is not None, argv
    command.make_context(name or "", rest, parent=ctx)


def test_every_sediment_command_and_option_exists() -> None:
    checked = [(where, argv) for where, argv in sediment_commands() if argv[:1] == ["sediment"]]
    assert {argv[1] for _, argv in checked} >= {"worker", "serve", "ping"}
    for where, argv in checked:
        try:
            check_command(argv)
        except Exception as exc:
            pytest.fail(f"{where}: {shlex.join(argv)}: {exc}")


def test_the_command_check_can_fail() -> None:
    with pytest.raises(Exception, match="bogus"):
        check_command(["sediment", "worker", "--bogus"])
    with pytest.raises(Exception):  # noqa: B017 - typer's click errors are private
        check_command(["sediment", "serve", "--port", "0"])
    with pytest.raises(Exception):  # noqa: B017
        check_command(["sediment", "no-such-command"])


def settings_in_deploy() -> Iterator[tuple[str, dict[str, str]]]:
    """(where, SEDIMENT_ variables with literal values) of each process definition."""
    for name, svc in compose()["services"].items():
        env = {k: str(v) for k, v in (svc.get("environment") or {}).items()}
        yield f"compose {name}", env
    for cm in of_kind("ConfigMap"):
        yield f"k8s configmap {cm['metadata']['name']}", dict(cm["data"])
    for deployment, c in containers():
        yield f"k8s {deployment} env", {e["name"]: "" for e in c.get("env", [])}
    docker = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    yield "Dockerfile", dict(re.findall(r"^ENV (SEDIMENT_\w+)=(\S+)$", docker, re.M))


def test_every_setting_exists_and_every_value_is_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    fields = set(Settings.model_fields)
    seen: set[str] = set()
    for where, env in settings_in_deploy():
        ours = {k: v for k, v in env.items() if k.startswith("SEDIMENT_")}
        seen |= set(ours)
        unknown = [k for k in ours if k.removeprefix("SEDIMENT_").lower() not in fields]
        assert not unknown, f"{where}: no such setting {unknown}"
        literal = {k: v for k, v in ours.items() if v and "${" not in v}
        for key in [k for k in os.environ if k.startswith("SEDIMENT_")]:
            monkeypatch.delenv(key)
        for key, value in literal.items():
            monkeypatch.setenv(key, value)
        try:
            settings = Settings()
        except pydantic.ValidationError as exc:
            pytest.fail(f"{where}: {exc}")
        if settings.mode == "distributed" and where != "Dockerfile":
            assert settings.qdrant_url, f"{where}: distributed mode needs SEDIMENT_QDRANT_URL"
    assert {"SEDIMENT_MODE", "SEDIMENT_REDIS_URL", "SEDIMENT_QDRANT_URL"} <= seen


def test_compose_services_are_healthy_scalable_and_private() -> None:
    services = compose()["services"]
    assert set(services) >= {"redis", "qdrant", "worker", "api", "flower"}
    for name, svc in services.items():
        assert svc.get("healthcheck", {}).get("test"), f"{name} has no health check"
    assert "ports" not in services["redis"], "Redis is not published on the host by default"
    command = services["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes", "Redis must persist (AOF)"
    assert "/data" in " ".join(services["redis"]["volumes"]), "AOF on a volume"
    for name in ("worker", "api"):
        env = services[name]["environment"]
        assert env.get("SEDIMENT_ALLOW_VOLATILE_REDIS", "false") == "false", name
    worker = services["worker"]
    assert "container_name" not in worker and "ports" not in worker, "--scale worker=N"
    assert services["api"]["command"][:2] == ["sediment", "serve"]
    assert "/healthz" in " ".join(services["api"]["healthcheck"]["test"])
    assert "/readyz" in " ".join(services["qdrant"]["healthcheck"]["test"])
    for name in ("worker", "api"):
        build = services[name]["build"]
        assert (COMPOSE.parent / build["context"] / build["dockerfile"]).is_file()
        assert services[name]["depends_on"]["qdrant"]["condition"] == "service_healthy"
    assert "qdrant" in services and "qdrant" in compose()["volumes"]


def test_qdrant_is_new_enough_for_per_bank_idf() -> None:
    """readmodel/stores/qdrant.py sends search_params.idf.corpus, new in Qdrant 1.19."""
    store = (ROOT / "readmodel" / "stores" / "qdrant.py").read_text(encoding="utf-8")
    assert "IdfCorpusParams" in store
    image = compose()["services"]["qdrant"]["image"]
    version = re.fullmatch(r"qdrant/qdrant:v(\d+)\.(\d+)\.\d+", image)
    assert version is not None, image
    assert (int(version.group(1)), int(version.group(2))) >= MIN_QDRANT


def test_prometheus_scrapes_the_api_route() -> None:
    scrape = yaml.safe_load((DEPLOY / "grafana" / "prometheus.yml").read_text(encoding="utf-8"))
    [job] = scrape["scrape_configs"]
    assert job["metrics_path"] in {r.path for r in ops.routes}  # type: ignore[attr-defined]
    host, port = job["static_configs"][0]["targets"][0].split(":")
    api = compose()["services"][host]
    assert f"{port}:{port}" in api["ports"] and port in api["command"]


def test_kubernetes_asks_for_a_persistent_redis() -> None:
    """The manifests bring no Redis of their own: they say it needs AOF, and nothing
    waives the check."""
    text = (K8S / "kustomization.yaml").read_text(encoding="utf-8")
    assert "appendonly yes" in text
    for cm in of_kind("ConfigMap"):
        assert cm["data"].get("SEDIMENT_ALLOW_VOLATILE_REDIS", "false") == "false"


def test_kubernetes_objects_refer_to_each_other() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text(encoding="utf-8"))
    listed = set(kustomization["resources"])
    assert listed == {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    deployments = {d["metadata"]["name"]: d for d in of_kind("Deployment")}
    assert set(deployments) == {"sediment-api", "sediment-worker"}
    config_maps = {c["metadata"]["name"] for c in of_kind("ConfigMap")}
    for name, d in deployments.items():
        labels = d["spec"]["template"]["metadata"]["labels"]
        assert d["spec"]["selector"]["matchLabels"].items() <= labels.items(), name
        for c in d["spec"]["template"]["spec"]["containers"]:
            refs = {e["configMapRef"]["name"] for e in c.get("envFrom", [])}
            assert refs and refs <= config_maps, name
            assert c["resources"]["requests"]["cpu"], f"{name}: the HPA needs a CPU request"
            assert c.get("livenessProbe") and c.get("readinessProbe"), name
    [service] = of_kind("Service")
    api_labels = deployments["sediment-api"]["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= api_labels.items()
    [hpa] = of_kind("HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"]["name"] == "sediment-worker"
    [metric] = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"


def test_probes_use_healthz_and_a_worker_ping() -> None:
    by_name = dict(containers())
    api = by_name["sediment-api"]
    for probe in ("livenessProbe", "readinessProbe"):
        assert api[probe]["httpGet"]["path"] == "/healthz"
        worker = by_name["sediment-worker"][probe]["exec"]["command"]
        assert worker[:3] == ["sediment", "ping", "--local"]


def test_procfile_runs_as_written() -> None:
    lines = PROCFILE.read_text(encoding="utf-8").splitlines()
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+: \S.*", line) for line in lines), lines
    assert {line.split(":")[0] for line in lines} >= {"worker", "api"}


def test_ci_runs_the_readme_test_command_with_nothing_set() -> None:
    """A green CI means the README's `make test` passes for a user: `.ci/run` sets no
    Sediment setting of its own before calling it."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in script
    assert "SEDIMENT_" not in script
    assert "make test" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_jaeger_is_optional_and_the_processes_can_reach_it() -> None:
    """Tracing in compose is opt-in: Jaeger only under the `tracing` profile, and the
    endpoint the Sediment processes get is empty unless the caller sets it (an empty
    endpoint leaves tracing off, sediment/tracing.py); the image has the otel extra."""
    services = compose()["services"]
    jaeger = services["jaeger"]
    assert jaeger["profiles"] == ["tracing"]
    assert "16686:16686" in jaeger["ports"]
    for name in ("worker", "api"):
        endpoint = services[name]["environment"]["OTEL_EXPORTER_OTLP_ENDPOINT"]
        assert endpoint == "${OTEL_EXPORTER_OTLP_ENDPOINT:-}", name
    assert "http://jaeger:4318" in COMPOSE.read_text(encoding="utf-8")
    assert '"/app[otel]"' in (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
