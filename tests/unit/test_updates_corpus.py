"""The independent update corpus: as written by its generator, big enough, split by family."""

import ast
import json
from collections import Counter
from pathlib import Path

from bench import corpus_families, corpus_gen, corpus_vocab
from bench.corpus_families import DISTRACTOR_FAMILIES, UPDATE_FAMILIES
from bench.supersession import load_supersession
from bench.supersession_score import LabelledStatement, acceptable
from bench.updates_corpus import default_paths


def _statements(path: Path) -> list[LabelledStatement]:
    return [s for b in load_supersession(path).banks for s in b.statements]


def test_shipped_files_are_what_the_generator_writes(tmp_path: Path) -> None:
    for written, shipped in zip(corpus_gen.write(tmp_path), default_paths(), strict=True):
        assert json.loads(written.read_text()) == json.loads(shipped.read_text())


def test_sizes_and_split_by_phrasing_family() -> None:
    dev, test = (_statements(p) for p in default_paths())
    roles = Counter(s.role for s in dev + test)
    assert roles["update_old"] >= 400
    assert roles["distractor"] >= 800
    dev_families = {s.family for s in dev}
    test_families = {s.family for s in test}
    assert not dev_families & test_families
    declared = {f.name: f.split for f in UPDATE_FAMILIES + DISTRACTOR_FAMILIES}
    assert all(declared[f] == "dev" for f in dev_families)
    assert all(declared[f] == "test" for f in test_families)


def test_every_update_has_an_acceptable_newer_statement() -> None:
    for path in default_paths():
        for bank in load_supersession(path).banks:
            for s in bank.statements:
                if s.superseded_by is not None:
                    assert s.superseded_by in acceptable(s, bank.statements), s.id


def test_a_bank_states_each_subject_attribute_once_outside_its_pair() -> None:
    """An anchor is never the older state of another pair's history."""
    for path in default_paths():
        for bank in load_supersession(path).banks:
            chains = Counter(s.chain for s in bank.statements if s.role == "anchor")
            olds = Counter(s.chain for s in bank.statements if s.role == "update_old")
            assert not set(chains) & set(olds)
            assert max(chains.values(), default=1) == 1


def test_the_corpus_is_written_without_the_extractor() -> None:
    for module in (corpus_gen, corpus_families, corpus_vocab):
        tree = ast.parse(Path(str(module.__file__)).read_text())
        imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
        }
        assert not {m for m in imported if m.startswith(("worker", "bench.supersession"))}
