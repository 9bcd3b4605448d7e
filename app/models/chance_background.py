"""The chance background's vectors (app/search/chance.py): the shipped passages
(app/models/assets/chance_passages.txt.gz) embedded by the installed dense model, at install
time, into ``<models dir>/chance_background.npz``; read once at start-up.

Missing (models installed before it existed) or made by another dense model: the search falls
back to the profile's fixed dense floor and says so in explain; `evidence models install`
makes it again.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import numpy as np

from app.models.build_chance_passages import ASSET, load_passages

FILE = "chance_background.npz"
log = logging.getLogger(__name__)


def _asset_digest() -> str:
    return hashlib.sha256(ASSET.read_bytes()).hexdigest()


def embed_background(models_dir: Path, dense: object, model_name: str) -> Path:
    """Embed the shipped passages with ``dense`` (a DenseEncoder) and keep the vectors."""
    vectors = np.asarray(dense.embed_documents(load_passages()),  # type: ignore[attr-defined]
                         dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    path = models_dir / FILE
    np.savez_compressed(path, vectors=vectors, model=np.array(model_name),
                        asset=np.array(_asset_digest()))
    return path


def load_background(models_dir: Path, model_name: str) -> np.ndarray | None:
    """The vectors, or None (with a warning) where they are missing or another model's."""
    path = models_dir / FILE
    if not path.exists():
        log.warning("no chance background in %s: the dense floor is the profile's fixed one "
                    "until `evidence models install` runs again", models_dir)
        return None
    with np.load(path) as data:
        if str(data["model"]) != model_name or str(data["asset"]) != _asset_digest():
            log.warning("the chance background in %s was made by %s or from other passages: "
                        "the dense floor is the profile's fixed one until `evidence models "
                        "install` runs again", models_dir, data["model"])
            return None
        return np.ascontiguousarray(data["vectors"])
