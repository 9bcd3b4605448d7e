"""docker-compose.yml on paper (no Docker engine runs here): valid against the compose-spec
schema, every EVIDENCE_ variable a real setting, services starting in dependency order with
health gates, no host folder hiding the image's models, and a server image whose minor
version matches the pinned client."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml
from pydantic import BaseModel

from app.settings import Settings
from tests.conftest import REPO

COMPOSE = REPO / "docker-compose.yml"


def _services() -> dict[str, dict]:
    return yaml.safe_load(COMPOSE.read_text())["services"]  # merge keys (<<) resolved


def test_the_file_is_valid_against_the_compose_spec_schema() -> None:
    checker = Path(sys.executable).parent / "check-jsonschema"
    done = subprocess.run([str(checker), "--builtin-schema", "vendor.compose-spec",
                           str(COMPOSE)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def _is_setting(name: str) -> bool:
    model: type[BaseModel] = Settings
    parts = name.removeprefix("EVIDENCE_").lower().split("__")
    for i, part in enumerate(parts):
        field = model.model_fields.get(part)
        if field is None:
            return False
        annotation = field.annotation
        if i < len(parts) - 1:
            if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
                return False
            model = annotation
    return True


def test_every_evidence_variable_is_a_real_setting() -> None:
    names = {name for service in _services().values()
             for name in (service.get("environment") or {}) if name.startswith("EVIDENCE_")}
    assert names >= {"EVIDENCE_DATABASE__URL", "EVIDENCE_QDRANT__URL", "EVIDENCE_LOG__FORMAT"}
    assert [n for n in names if not _is_setting(n)] == []
    assert not _is_setting("EVIDENCE_QDRANT__URLS") and not _is_setting("EVIDENCE_NOPE")


def _start_order(services: dict[str, dict]) -> list[str]:
    order: list[str] = []
    waiting = dict(services)
    while waiting:
        ready = sorted(name for name, s in waiting.items()
                       if set(s.get("depends_on") or {}) <= set(order))
        assert ready, f"a dependency cycle among {sorted(waiting)}"
        order += ready
        for name in ready:
            del waiting[name]
    return order


def test_services_start_in_dependency_order_behind_health_gates() -> None:
    services = _services()
    order = _start_order(services)
    assert order.index("migrate") < order.index("api")
    assert order.index("migrate") < order.index("worker")
    for name in ("api", "worker"):
        assert services[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"}
    for name, service in services.items():
        for dependency, gate in (service.get("depends_on") or {}).items():
            if gate["condition"] == "service_healthy":
                assert "healthcheck" in services[dependency], (name, dependency)
        if name != "migrate":
            assert service.get("restart") == "unless-stopped", name
    assert services["migrate"]["command"] == ["evidence", "migrate"]
    assert "/readyz" in " ".join(services["api"]["healthcheck"]["test"])


def test_nothing_hides_the_models_the_image_installs() -> None:
    for name, service in _services().items():
        for volume in service.get("volumes") or []:
            assert "/app/models" not in str(volume), name
    assert "evidence models install" in (REPO / "Dockerfile").read_text()
    ignored = (REPO / ".dockerignore").read_text().split()
    assert {".venv", "data", "models/*", ".git"} <= set(ignored)


def test_the_qdrant_image_matches_the_pinned_client_minor_version() -> None:
    image = _services()["qdrant"]["image"]
    server = re.fullmatch(r"qdrant/qdrant:v(\d+)\.(\d+)\.\d+", image)
    assert server, image
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    pin = next(d for d in deps if d.startswith("qdrant-client"))
    low, high = re.fullmatch(r"qdrant-client>=(\d+\.\d+),<(\d+\.\d+)", pin).groups()
    assert low == f"{server[1]}.{server[2]}" and high == f"{server[1]}.{int(server[2]) + 1}"


def test_the_first_key_outlives_the_container_and_qdrant_stays_inside() -> None:
    services = _services()
    api = services["api"]
    assert api["environment"]["EVIDENCE_DATA_DIR"] == "/data"
    assert api["environment"]["EVIDENCE_QDRANT__URL"] == "http://qdrant:6333"  # merged in
    assert "api-data:/data" in api["volumes"]
    assert "api-data" in yaml.safe_load((REPO / "docker-compose.yml").read_text())["volumes"]
    assert "ports" not in services["qdrant"]  # no API key there: reached only in the network
