"""The shipped merge-benchmark pairs are well formed: enough of each kind, both halves
about even and covering every family, no pair twice, none in both halves."""

from collections import Counter

import pytest

from bench.merges.data import SPLITS, MergesFile, default_path, load_merges, of_split

DISTINCT_FAMILIES = {
    "possessive_subject",
    "kin_subject",
    "role_subject",
    "swapped_arguments",
    "another_qualifier",
    "another_object",
    "another_number",
    "another_date",
    "another_time",
    "negation",
    "another_tense",
    "lowercase_digit_subject",
    "accented_names",
}


@pytest.fixture(scope="module")
def data() -> MergesFile:
    return load_merges(default_path())


def test_enough_pairs_of_each_kind(data: MergesFile) -> None:
    kinds = Counter(p.kind for p in data.pairs)
    assert kinds["distinct"] >= 150
    assert kinds["restatement"] >= 100


def test_every_distinct_family_named_and_enough_restatement_families(data: MergesFile) -> None:
    families = {p.family for p in data.pairs if p.kind == "distinct"}
    assert families == DISTINCT_FAMILIES
    assert len({p.family for p in data.pairs if p.kind == "restatement"}) >= 6


@pytest.mark.parametrize("kind", ["distinct", "restatement"])
def test_halves_are_about_even_per_kind(data: MergesFile, kind: str) -> None:
    total = sum(p.kind == kind for p in data.pairs)
    for split in SPLITS:
        half = sum(p.kind == kind for p in of_split(data, split))
        assert 0.45 * total <= half <= 0.55 * total, (split, half, total)


def test_every_family_in_both_halves_with_at_least_five_pairs(data: MergesFile) -> None:
    for split in SPLITS:
        per_family = Counter(p.family for p in of_split(data, split))
        assert set(per_family) == {p.family for p in data.pairs}
        assert min(per_family.values()) >= 5, (split, per_family.most_common()[-1])


def test_the_split_is_the_documented_alternation(data: MergesFile) -> None:
    """Within each family, in file order, the 1st, 3rd, 5th... pair is dev."""
    seen: Counter[str] = Counter()
    for p in data.pairs:
        assert p.split == ("dev" if seen[p.family] % 2 == 0 else "test"), p.id
        seen[p.family] += 1


def test_no_pair_twice_and_none_in_both_halves(data: MergesFile) -> None:
    def key(a: str, b: str) -> frozenset[str]:
        return frozenset(" ".join(t.split()).casefold() for t in (a, b))

    keys = [key(p.a.text, p.b.text) for p in data.pairs]
    assert len(keys) == len(set(keys))
    dev = {key(p.a.text, p.b.text) for p in of_split(data, "dev")}
    test = {key(p.a.text, p.b.text) for p in of_split(data, "test")}
    assert not dev & test
    assert len({p.id for p in data.pairs}) == len(data.pairs)


def test_distinct_pairs_ask_one_query_per_statement(data: MergesFile) -> None:
    """Each fact has its own query, so a hidden one is seen as hidden."""
    for p in data.pairs:
        if p.kind == "distinct":
            assert p.a.query and p.b.query and p.a.query != p.b.query, p.id
