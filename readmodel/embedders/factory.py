"""Build the embedder named by configuration.

Imports are deferred so that choosing `hash` or `static` never loads torch. A process
loads each model once: every runtime, recaller and benchmark system of a process that
asks for the same model shares it (encoding holds no state between calls).
"""

from functools import cache
from pathlib import Path
from typing import Literal

from readmodel.embedders import Embedder

EmbedderName = Literal["static", "minilm", "hash"]


def make_embedder(name: EmbedderName, static_path: Path | None = None) -> Embedder:
    """`static_path` applies to `static` only; it defaults to the model shipped with the code."""
    if name == "static":
        from readmodel.embedders.static import SHIPPED_MODEL_DIR

        return _static(static_path or SHIPPED_MODEL_DIR)
    if name == "minilm":
        return _minilm()
    if name == "hash":
        from readmodel.embedders.hashing import HashEmbedder

        return HashEmbedder()
    raise ValueError(f"unknown embedder {name!r}; expected static, minilm or hash")


@cache
def _static(path: Path) -> Embedder:
    from readmodel.embedders.static import StaticEmbedder

    return StaticEmbedder(path)


@cache
def _minilm() -> Embedder:
    from readmodel.embedders.minilm import MiniLMEmbedder

    return MiniLMEmbedder()
