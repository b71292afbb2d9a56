"""Static embedder: MiniLM distilled by model2vec into a token-vector table.

Embedding is a tokenizer pass and a mean over table rows, so the default embedder needs
neither torch nor a network, and is fast enough to embed on the recall path.
"""

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from model2vec import StaticModel

from readmodel.embedders import Vectors

SHIPPED_MODEL_DIR = Path(__file__).resolve().parent / "static"
"""Distilled model committed with the code, so a fresh machine needs no model download."""

_REQUIRED_FILES = ("model.safetensors", "tokenizer.json", "config.json")


class StaticEmbedder:
    """A model2vec `StaticModel` loaded from a local directory.

    The directory is checked before loading because model2vec treats a path that does not
    exist as a hub repository id and would try to download it.
    """

    def __init__(self, path: Path = SHIPPED_MODEL_DIR, name: str | None = None) -> None:
        missing = [f for f in _REQUIRED_FILES if not (path / f).is_file()]
        if missing:
            raise FileNotFoundError(
                f"no static model at {path} (missing {', '.join(missing)}); "
                "build one with `python -m readmodel.embedders.build_static`"
            )
        self._model = StaticModel.from_pretrained(path, normalize=True)
        self._dimension = int(self._model.dim)
        self._name = name or f"static-minilm-{self._dimension}"

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed in one batch.

        Multiprocessing is off because Celery's prefork children are daemonic and may not
        start their own workers. Texts with no known token (empty, emoji only) would give a
        zero vector, which cosine search cannot use; they get a fixed unit vector instead.
        """
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        vectors = self._model.encode(list(texts), normalize=True, use_multiprocessing=False)
        matrix = np.asarray(vectors, dtype=np.float64).reshape(len(texts), self._dimension)
        norms = np.linalg.norm(matrix, axis=1)
        empty = norms < 1e-6
        matrix[empty] = 0.0
        matrix[empty, 0] = 1.0
        norms[empty] = 1.0
        matrix /= norms[:, None]
        return matrix.astype(np.float32)
