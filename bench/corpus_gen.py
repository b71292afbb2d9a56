"""Write the independent update corpus: `python -m bench.corpus_gen` (seeded, deterministic).

Banks of about thirty statements, each with several subjects (the speaker and named people,
or people and things in third-person notes), true updates (an earlier state and the later
statement that replaces it) and distractors beside the anchor fact they could be mistaken
for replacing. A (subject, attribute) is used once per bank, so an anchor is never the
legitimate old state of another pair. Half the banks arrive out of time order. The split is
by phrasing family (bench/corpus_families.py): every statement of a test family is in the
test file. Output: bench/data/updates_corpus_{dev,test}.json, in the supersession format.
"""

import json
import random
import re
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.corpus_families import (
    ASIDES,
    DISTRACTOR_FAMILIES,
    RETRACTED,
    UPDATE_FAMILIES,
    Family,
)
from bench.corpus_vocab import ATTRIBUTES, DOCTORS, FILLERS, HOLDERS, PEOPLE, Attribute, Person

SEED = 30_2026
UPDATES_PER_FAMILY = 20
DISTRACTORS_PER_FAMILY = 70
BANK_SIZE = 30
USER = Person("I", "I", "me", "my", "")
NAMES = tuple({p.name for p in PEOPLE} | set(HOLDERS) | set(DOCTORS))
SWITCHED = next(f for f in UPDATE_FAMILIES if f.name == "switched_to")
CAUGHT_UP = next(f for f in UPDATE_FAMILIES if f.name == "caught_up_with")
ANY = Family("any attribute", "", {"*": ("-",)})


@dataclass
class Statement:
    id: str
    text: str
    at: datetime
    subject: str
    attribute: str
    role: str
    family: str
    chain: str
    value: str
    superseded_by: str | None = None
    other_chains: list[str] = field(default_factory=list)


@dataclass
class Bank:
    id: str
    voice: str
    people: list[Person]
    things: dict[str, list[str]]
    base: datetime
    claimed: set[tuple[str, str]] = field(default_factory=set)
    statements: list[Statement] = field(default_factory=list)


def _subject_key(subject: Person | str) -> str:
    return subject if isinstance(subject, str) else subject.name


def render(template: str, subject: Person | str, attr: Attribute, a: str, b: str) -> str:
    """Fill a template for one subject (a person, the speaker, or a thing)."""
    person = subject if isinstance(subject, Person) else USER
    first = person is USER
    verb = attr.verb
    names = {
        "S": person.name, "s": person.pronoun, "me": person.obj, "poss": person.poss,
        "my": "my" if first else f"{person.name}'s", "My": "my" if first else f"{person.name}'s",
        "My_rel": f"my {person.relation} {person.name}", "a": a, "b": b, "v": b,
        "V": verb[0] if first else verb[1], "V0": verb[0], "Ved": verb[2], "Ving": verb[3],
        "prep": attr.prep, "chg": attr.change, "noun": attr.noun,
        "t": subject if isinstance(subject, str) else "",
    }  # fmt: skip

    def fill(m: re.Match[str]) -> str:
        key = m.group(1)
        if "|" in key:
            one, three = key.split("|")
            return one if first else three
        return names[key]

    text = re.sub(r"\{([^{}]+)\}", fill, template)
    text = re.sub(r"([.:;]) (he|she)\b", lambda m: f"{m.group(1)} {m.group(2).title()}", text)
    return text[0].upper() + text[1:]


def templates(family: Family, attr: Attribute) -> tuple[str, ...]:
    return family.new.get(attr.name) or family.new.get(attr.kind) or family.new.get("*", ())


def _lower_first(text: str) -> str:
    """Lower-case a sentence's first word for use mid-sentence, unless it is a name."""
    word = text.split(" ", 1)[0].removesuffix("'s")
    return text if word == "I" or word in NAMES else text[0].lower() + text[1:]


def _voice(bank: Bank, text: str) -> str:
    return f"User: {text}" if bank.voice == "user" else text


class Builder:
    """Places one family item at a time into a bank, claiming its (subject, attribute)s."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def subjects(self, bank: Bank, attr: Attribute, person_only: bool) -> list[Person | str]:
        if attr.kind in ("date", "status"):
            return list(bank.things[attr.kind])
        people: list[Person | str] = list(bank.people)
        if bank.voice == "user" and not person_only:
            people.append(USER)
        return people

    def pick(
        self, bank: Bank, family: Family, person_only: bool = False, kinds: tuple[str, ...] = ()
    ) -> tuple[Person | str, Attribute] | None:
        options = [
            (s, a)
            for a in ATTRIBUTES
            if templates(family, a) and (not kinds or a.kind in kinds)
            for s in self.subjects(bank, a, person_only or family.person_only)
            if (_subject_key(s), a.name) not in bank.claimed
        ]
        return self.rng.choice(options) if options else None

    def values(self, attr: Attribute, avoid: tuple[str, ...] = ()) -> tuple[str, str]:
        a, b = self.rng.sample([v for v in attr.values if v not in avoid], 2)
        return a, b

    def add(self, bank: Bank, st: Statement) -> Statement:
        bank.statements.append(st)
        return st

    def statement(
        self, bank: Bank, text: str, at: datetime, subject: Person | str, attr: Attribute,
        role: str, family: str, value: str,
    ) -> Statement:  # fmt: skip
        key = _subject_key(subject)
        n = len(bank.statements)
        return self.add(
            bank,
            Statement(f"{bank.id}.{n:02d}", _voice(bank, text), at, key, attr.name, role,
                      family, f"{bank.id}:{key}:{attr.name}", value),
        )  # fmt: skip

    def times(self, bank: Bank) -> tuple[datetime, datetime]:
        old = bank.base + timedelta(days=self.rng.randint(0, 60), minutes=len(bank.statements))
        return old, old + timedelta(days=self.rng.randint(3, 120), hours=self.rng.randint(1, 9))

    def update(self, bank: Bank, family: Family) -> bool:
        """An earlier state and the statement that replaces it (two of them for `=two`)."""
        picked = self.pick(bank, family)
        if picked is None:
            return False
        subject, attr = picked
        template = self.rng.choice(templates(family, attr))
        old_at, new_at = self.times(bank)
        if template == "=two":
            return self._two(bank, family, subject, attr, old_at, new_at)
        a, b = self.values(attr)
        if family.values:
            index = templates(family, attr).index(template)
            b = family.values[index]
            a = self.rng.choice([v for v in attr.values if v != b])
        if template.startswith("=state"):
            new_text = render(attr.state[int(template[-1])], subject, attr, a, b)
            old_text = render(attr.state[0], subject, attr, a, a)
        else:
            new_text = render(template, subject, attr, a, b)
            old_text = render(self.rng.choice(attr.state), subject, attr, a, a)
        if family.filler:
            new_text = f"{self.rng.choice(FILLERS)}, {_lower_first(new_text)}"
            new_text = new_text[0].upper() + new_text[1:]
        if family.second_clause:
            new_text = f"{new_text[:-1]}, {self.rng.choice(ASIDES)}."
        bank.claimed.add((_subject_key(subject), attr.name))
        value = RETRACTED if family.retracts else b
        old = self.statement(bank, old_text, old_at, subject, attr, "update_old", family.name, a)
        new = self.statement(
            bank, new_text, new_at, subject, attr, "update_new", family.name, value
        )
        old.superseded_by = new.id
        return True

    def _two(
        self, bank: Bank, family: Family, subject: Person | str, attr: Attribute,
        old_at: datetime, new_at: datetime,
    ) -> bool:  # fmt: skip
        bank.claimed.add((_subject_key(subject), attr.name))
        second = self.pick(bank, family, kinds=("verb", "copula", "role", "have"))
        if second is None or _subject_key(second[0]) != _subject_key(subject):
            options = [
                a
                for a in ATTRIBUTES
                if a.kind not in ("date", "status")
                and a.name != attr.name
                and (_subject_key(subject), a.name) not in bank.claimed
            ]
            if attr.kind in ("date", "status") or not options:
                bank.claimed.discard((_subject_key(subject), attr.name))
                return False
            second = (subject, self.rng.choice(options))
        attr2 = second[1]
        bank.claimed.add((_subject_key(subject), attr2.name))
        (a1, b1), (a2, b2) = self.values(attr), self.values(attr2)
        one = render(attr.state[0], subject, attr, b1, b1)[:-1]
        two = _lower_first(render(attr2.state[0], subject, attr2, b2, b2)[:-1])
        text = f"Big changes: {_lower_first(one)}, and {two}."
        olds = [
            self.statement(bank, render(at.state[0], subject, at, a, a), old_at, subject, at,
                           "update_old", family.name, a)
            for at, a in ((attr, a1), (attr2, a2))
        ]  # fmt: skip
        new = self.statement(bank, text, new_at, subject, attr, "update_new", family.name, b1)
        new.other_chains = [olds[1].chain]
        for old in olds:
            old.superseded_by = new.id
        return True

    def distractor(self, bank: Bank, family: Family) -> bool:
        """An anchor fact and a statement beside it that must replace nothing."""
        picked = self.pick(bank, ANY if "*" in family.new else family)
        if picked is None:
            return False
        subject, attr = picked
        template = self.rng.choice(templates(family, attr))
        anchor_at, later = self.times(bank)
        at = later if self.rng.random() < 0.8 else anchor_at - timedelta(days=7)
        a, b = self.values(attr)
        if template.startswith("="):
            placed = self._other(bank, family, template, subject, attr, a, b, at)
            if placed is None:
                return False
        else:
            text = render(template, subject, attr, a, b)
        bank.claimed.add((_subject_key(subject), attr.name))
        anchor = render(self.rng.choice(attr.state), subject, attr, a, a)
        self.statement(bank, anchor, anchor_at, subject, attr, "anchor", family.name, a)
        if template.startswith("="):
            assert placed is not None
            other, other_attr, text = placed
            bank.claimed.add((_subject_key(other), other_attr.name))
            self.statement(bank, text, at, other, other_attr, "distractor", family.name, b)
        else:
            self.statement(bank, text, at, subject, attr, "distractor", family.name, b)
        return True

    def _other(
        self, bank: Bank, family: Family, template: str, subject: Person | str,
        attr: Attribute, a: str, b: str, at: datetime,
    ) -> tuple[Person | str, Attribute, str] | None:  # fmt: skip
        """Someone else's same fact, or the same subject's other fact, said with a cue."""
        if template.startswith("=attr2"):
            options = [
                x
                for x in ATTRIBUTES
                if x.kind not in ("date", "status") and x.name != attr.name
                and (_subject_key(subject), x.name) not in bank.claimed
            ]  # fmt: skip
            if attr.kind in ("date", "status") or not options:
                return None
            attr2 = self.rng.choice(options)
            _, v = self.values(attr2)
            said = templates(SWITCHED, attr2) if template.endswith("switched") else ()
            text = render(self.rng.choice(said or attr2.state[:1]), subject, attr2, v, v)
            return subject, attr2, text
        others = [
            s
            for s in self.subjects(bank, attr, template == "=other_caught_up")
            if _subject_key(s) != _subject_key(subject)
            and (_subject_key(s), attr.name) not in bank.claimed
        ]
        if not others:
            return None
        other = self.rng.choice(others)
        if template == "=other_state0":
            use: tuple[str, ...] = attr.state[:1]
        elif template == "=other_switched":
            use = templates(SWITCHED, attr) or attr.state[:1]
        elif template == "=other_new_holder" and attr.kind == "role":
            use = ("{My} new {noun} is {b}.",)
        else:
            use = (templates(CAUGHT_UP, attr) if isinstance(other, Person) else ()) or (
                templates(SWITCHED, attr) or attr.state[:1]
            )
        return other, attr, render(self.rng.choice(use), other, attr, a, b)


def new_bank(rng: random.Random, split: str, n: int) -> Bank:
    voice = "user" if n % 2 == 0 else "notes"
    people = rng.sample(PEOPLE, 4 if voice == "user" else 5)
    things = {
        "date": [f"{t}" for t in rng.sample(ATTR_THINGS["date"], 3)],
        "status": [f"{t}" for t in rng.sample(ATTR_THINGS["status"], 3)],
    }
    base = datetime(2024, 1, 1, 9, tzinfo=UTC) + timedelta(days=3 * n)
    return Bank(f"{split}-{n:03d}", voice, people, things, base)


ATTR_THINGS = {a.kind: list(a.things) for a in ATTRIBUTES if a.things}


def build_split(split: str, seed: int = SEED) -> list[Bank]:
    """Every family of the split, its items spread over banks of about BANK_SIZE."""
    rng = random.Random(f"{seed}:{split}")
    builder = Builder(rng)
    queue: list[tuple[Family, bool]] = [
        (f, True) for f in UPDATE_FAMILIES if f.split == split for _ in range(UPDATES_PER_FAMILY)
    ] + [
        (f, False)
        for f in DISTRACTOR_FAMILIES
        if f.split == split
        for _ in range(DISTRACTORS_PER_FAMILY)
    ]
    rng.shuffle(queue)
    banks = [new_bank(rng, split, 0)]
    misses = 0
    while queue:
        bank = banks[-1]
        family, is_update = queue.pop(0)
        ok = bank.voice in family.voices and (
            builder.update(bank, family) if is_update else builder.distractor(bank, family)
        )
        if ok:
            misses = 0
        else:
            queue.append((family, is_update))
            misses += 1
        if len(bank.statements) >= BANK_SIZE or misses > 8:
            banks.append(new_bank(rng, split, len(banks)))
            misses = 0
    return [b for b in banks if b.statements]


def entities(text: str, subject: str) -> list[str]:
    """What a producer sends: the named people in the text (or resolved from a pronoun)."""
    named = sorted((n for n in NAMES if re.search(rf"\b{re.escape(n)}\b", text)), key=text.find)
    person = next((p for p in PEOPLE if p.name == subject), None)
    if person and subject not in named and re.search(rf"\b{person.pronoun}\b", text, re.I):
        named.insert(0, subject)
    return named


def statement_json(s: Statement) -> dict[str, object]:
    return {
        "id": s.id, "text": s.text, "occurred_at": s.at.isoformat(),
        "entities": entities(s.text, s.subject), "subject": s.subject,
        "attribute": s.attribute, "role": s.role, "family": s.family,
        "chain": s.chain, "other_chains": s.other_chains, "value": s.value,
        "superseded_by": s.superseded_by,
    }  # fmt: skip


def bank_json(bank: Bank, rng: random.Random) -> dict[str, object]:
    order = sorted(bank.statements, key=lambda s: s.at)
    if int(bank.id[-3:]) % 2 == 1:
        rng.shuffle(order)
    return {
        "id": bank.id,
        "voice": bank.voice + (" (out of order)" if int(bank.id[-3:]) % 2 == 1 else ""),
        "statements": [statement_json(s) for s in order],
    }


def write(folder: Path, seed: int = SEED) -> list[Path]:
    out = []
    for split in ("dev", "test"):
        rng = random.Random(f"{seed}:{split}:order")
        banks = build_split(split, seed)
        every = UPDATE_FAMILIES + DISTRACTOR_FAMILIES
        families = sorted({f.name for f in every if f.split == split})
        doc = {
            "name": "updates-corpus",
            "split": f"corpus-{split}",
            "note": f"Independent update corpus (bench/corpus_gen.py, seed {seed}); phrasing "
            f"families: {', '.join(families)}. Statements in arrival order; odd banks out of "
            "time order.",
            "banks": [bank_json(b, rng) for b in banks],
        }
        path = folder / f"updates_corpus_{split}.json"
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        out.append(path)
    return out


if __name__ == "__main__":
    for p in write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("bench/data")):
        print(f"wrote {p}")
