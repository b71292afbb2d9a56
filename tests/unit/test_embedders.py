"""Embedders: unit vectors, stable across processes, and similar text scores above unrelated."""

import math
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from readmodel.embedders import Embedder
from readmodel.embedders.factory import make_embedder
from readmodel.embedders.hashing import HashEmbedder
from readmodel.embedders.static import SHIPPED_MODEL_DIR, StaticEmbedder

ANCHOR = "Alice moved to Seattle"
PARAPHRASE = "Alice relocated to Seattle"
UNRELATED = "The stock market fell"
ODD_TEXTS = ["", "   ", "!!!", "🙂🙂", "x" * 5000]


def cos(a: Sequence[float], b: Sequence[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


def assert_unit(vectors: np.ndarray, dimension: int) -> None:
    for v in vectors:
        assert len(v) == dimension
        assert math.isclose(math.sqrt(cos(v, v)), 1.0, abs_tol=1e-6)


def assert_paraphrase_closer(embedder: Embedder) -> None:
    anchor, paraphrase, unrelated = embedder.embed([ANCHOR, PARAPHRASE, UNRELATED])
    assert cos(anchor, paraphrase) > cos(anchor, unrelated) + 0.2


def assert_batch_matches_single(embedder: Embedder) -> None:
    texts = [ANCHOR, UNRELATED, "a much longer sentence about what Bob had for breakfast"]
    batched = embedder.embed(texts)
    for text, vector in zip(texts, batched, strict=True):
        assert cos(embedder.embed([text])[0], vector) == pytest.approx(1.0, abs=1e-5)


def run_python(code: str, **env_vars: str) -> str:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **env_vars}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


class TestHash:
    def test_name_dimension_and_unit_norm(self) -> None:
        embedder = HashEmbedder(64)
        assert (embedder.name, embedder.dimension) == ("hash-64", 64)
        assert_unit(embedder.embed([ANCHOR, *ODD_TEXTS]), 64)

    def test_deterministic_across_processes(self) -> None:
        code = (
            "from readmodel.embedders.hashing import HashEmbedder\n"
            f"print(repr(HashEmbedder().embed([{ANCHOR!r}])[0]))"
        )
        first, second = (run_python(code, PYTHONHASHSEED=seed) for seed in ("1", "2"))
        assert first == second == repr(HashEmbedder().embed([ANCHOR])[0]) + "\n"

    def test_paraphrase_closer_than_unrelated(self) -> None:
        assert_paraphrase_closer(HashEmbedder())

    def test_empty_batch(self) -> None:
        assert HashEmbedder().embed([]).shape == (0, 256)

    def test_rejects_nonpositive_dimension(self) -> None:
        with pytest.raises(ValueError):
            HashEmbedder(0)


@pytest.fixture(scope="module")
def static() -> StaticEmbedder:
    return StaticEmbedder(SHIPPED_MODEL_DIR)


class TestStatic:
    def test_loads_shipped_model(self, static: StaticEmbedder) -> None:
        assert (static.name, static.dimension) == ("static-minilm-256", 256)

    def test_unit_norm_even_for_text_without_known_tokens(self, static: StaticEmbedder) -> None:
        assert_unit(static.embed([ANCHOR, *ODD_TEXTS]), 256)

    def test_paraphrase_closer_than_unrelated(self, static: StaticEmbedder) -> None:
        assert_paraphrase_closer(static)

    def test_batch_matches_single(self, static: StaticEmbedder) -> None:
        assert_batch_matches_single(static)

    def test_empty_batch(self, static: StaticEmbedder) -> None:
        assert static.embed([]).shape == (0, static.dimension)

    def test_missing_directory_fails_locally(self, tmp_path: Path) -> None:
        with pytest.raises(FileNotFoundError, match="build_static"):
            StaticEmbedder(tmp_path / "nope")

    def test_runs_without_torch(self) -> None:
        out = run_python(
            "import sys\n"
            "sys.modules['torch'] = None\n"
            "from readmodel.embedders.factory import make_embedder\n"
            "print(len(make_embedder('static').embed(['hello'])[0]))"
        )
        assert out.strip() == "256"


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    return make_embedder("minilm")


@pytest.mark.minilm
class TestMiniLM:
    def test_name_dimension_and_unit_norm(self, minilm: Embedder) -> None:
        assert (minilm.name, minilm.dimension) == ("minilm-384", 384)
        assert_unit(minilm.embed([ANCHOR, *ODD_TEXTS]), 384)

    def test_paraphrase_closer_than_unrelated(self, minilm: Embedder) -> None:
        assert_paraphrase_closer(minilm)

    def test_batch_matches_single(self, minilm: Embedder) -> None:
        assert_batch_matches_single(minilm)

    def test_a_process_loads_the_model_once(self, minilm: Embedder) -> None:
        assert make_embedder("minilm") is minilm


def test_minilm_without_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from readmodel.embedders.minilm import MiniLMEmbedder

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ImportError, match=r"sediment-memory\[minilm\]"):
        MiniLMEmbedder()


def test_factory_builds_each_cheap_embedder() -> None:
    assert make_embedder("hash").name == "hash-256"
    assert make_embedder("static").dimension == 256
    assert make_embedder("static") is make_embedder("static")
    with pytest.raises(ValueError):
        make_embedder("word2vec")  # type: ignore[arg-type]
