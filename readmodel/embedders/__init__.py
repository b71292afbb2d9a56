"""Embedders behind one port; chosen by `SEDIMENT_EMBEDDER`."""

from collections.abc import Sequence
from typing import Protocol


class Embedder(Protocol):
    """Text to unit-length dense vectors. `name` identifies the model (stored with the data)."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]: ...
