"""The installed-models manifest (``models/manifest.json``): profile, models, files, checksums."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from app.domain.errors import ModelsNotInstalled
from app.models.profiles import PROFILES, ModelProfile

MANIFEST_NAME = "manifest.json"


@dataclass
class InstalledModel:
    model: str
    path: str  # relative to the models directory
    files: dict[str, str] = field(default_factory=dict)  # relative file -> sha256


@dataclass
class Manifest:
    profile: str
    dense: InstalledModel | None
    sparse: InstalledModel
    spacy: InstalledModel
    reranker: InstalledModel | None = None
    dense_dim: int = 384
    dense_max_tokens: int = 512

    @property
    def model_profile(self) -> ModelProfile:
        return PROFILES[self.profile]

    def save(self, models_dir: Path) -> Path:
        path = models_dir / MANIFEST_NAME
        path.write_text(json.dumps(asdict(self), indent=2, sort_keys=True) + "\n")
        return path

    @classmethod
    def load(cls, models_dir: Path) -> Manifest:
        path = models_dir / MANIFEST_NAME
        if not path.exists():
            raise ModelsNotInstalled(
                f"no models are installed in {models_dir}: run `evidence models install`")
        raw = json.loads(path.read_text())

        def part(key: str) -> InstalledModel | None:
            return InstalledModel(**raw[key]) if raw.get(key) else None

        sparse, spacy = part("sparse"), part("spacy")
        assert sparse is not None and spacy is not None
        return cls(profile=raw["profile"], dense=part("dense"), sparse=sparse, spacy=spacy,
                   reranker=part("reranker"), dense_dim=raw.get("dense_dim", 384),
                   dense_max_tokens=raw.get("dense_max_tokens", 512))


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checksums(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): sha256_file(p)
            for p in sorted(root.rglob("*")) if p.is_file()}
