"""Embedders behind one port; chosen by `SEDIMENT_EMBEDDER`."""

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
"""Rows of unit-length float32 vectors, one per text: kept as an array end to end."""


class Embedder(Protocol):
    """Text to unit-length dense vectors. `name` identifies the model (stored with the data)."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...
