"""Writes bench/data/supersession_dev.json and supersession_test.json (deterministic).

`python -m bench.supersession_gen`. Banks of made-up people and things: a notes bank in
the third person, a user's bank in the first person, or a chat between two speakers
("Name: ..."). Each person gets two or three attribute histories (a first state, then one
or two newer values, some phrased with no change word at all) and many statements that
must not supersede anything: episodes, feelings, actions on objects, restatements, facts
about other people and about other attributes, all full of change words. Statements are
labelled, then delivered in a fixed shuffled order. Banks alternate between the dev and
the test half; templates at positions 3, 7, 11, ... of every list are test-only.
"""

import json
import random
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench import supersession_templates as tp
from bench.supersession_render import Who, email_values, pick, render, value_slots
from bench.supersession_templates import FIRST_NAMES, KIDS, OTHER_NAMES, AttributeBank

SEED = 11_2024
BANKS = 20
START = datetime(2022, 1, 3, 9, 0, tzinfo=UTC)
SPAN_DAYS = 900
PERSON_ATTRIBUTES = [
    "residence",
    "employer",
    "job_title",
    "partner",
    "pet",
    "car",
    "school",
    "diet",
    "phone",
    "email",
    "manager",
    "preference",
    "setting",
    "deadline",
]
LOWER_AFTER_OPENER = frozenset(
    "My The These Lately After Home Write Use Call New Reminder Someone We To Since".split()
)


@dataclass
class Statement:
    text: str
    day: float
    subject: str
    role: str
    attribute: str | None = None
    chain: str | None = None
    value: str | None = None
    cue: bool | None = None
    held_out: bool = False
    speaker: str | None = None
    id: str = ""
    superseded_by: str | None = None


@dataclass
class Bank:
    id: str
    split: str
    voice: str
    people: set[str] = field(default_factory=set)
    statements: list[Statement] = field(default_factory=list)


def attribute_bank(attribute: str, sub: str | None) -> AttributeBank:
    if attribute == "preference" and sub is not None:
        return tp.PREFERENCES[sub]
    if attribute == "setting":
        return tp.ALARM
    if attribute == "deadline":
        return tp.PERSONAL_DEADLINE
    return tp.ATTRIBUTES[attribute]


class Generator:
    """Draws people, values, days and templates from one seeded random source."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.names = list(FIRST_NAMES)
        self.others = list(OTHER_NAMES)
        self.kids = list(KIDS)
        self.projects = list(tp.PROJECTS)
        for pool in (self.names, self.others, self.kids, self.projects):
            self.rng.shuffle(pool)
        self.cycles: dict[str, list[str]] = {"dev": [], "test": []}
        self.others_of = ""

    def next_attribute(self, taken: set[str], split: str) -> str:
        """Attributes are dealt round-robin per half so every type gets about the same share."""
        cycle = self.cycles[split]
        if not [a for a in cycle if a not in taken]:
            fresh = list(PERSON_ATTRIBUTES)
            self.rng.shuffle(fresh)
            cycle += fresh
        choice = next(a for a in cycle if a not in taken)
        cycle.remove(choice)
        return choice

    def other(self, bank: Bank) -> str:
        """Someone else, named once per bank (the pool restarts with every bank)."""
        if bank.id != self.others_of:
            self.others_of = bank.id
            self.others = [n for n in OTHER_NAMES if n not in bank.people]
            self.rng.shuffle(self.others)
        name = self.others.pop()
        bank.people.add(name)
        return name

    def days(self, n: int, lo: float = 0, hi: float = SPAN_DAYS) -> list[float]:
        return sorted(round(self.rng.uniform(lo, hi), 3) for _ in range(n))


@dataclass
class Voice:
    """Who writes about a subject: nobody (notes), or a chat speaker."""

    speaker: str | None
    who: Who


class BankBuilder:
    def __init__(self, g: Generator, bank: Bank) -> None:
        self.g, self.bank, self.rng = g, bank, g.rng

    def add(self, template: str, voice: Voice, extra: dict[str, str], **labels: Any) -> None:
        """Render one statement; other people are only drawn when the template names them."""
        for slot in ("N", "M"):
            if "{" + slot in template and slot not in extra:
                extra = {**extra, slot: self.g.other(self.bank)}
        text = render(template, voice.who, extra)
        if voice.speaker is not None:
            text = f"{voice.speaker}: {self.chatty(text)}"
        self.bank.statements.append(Statement(text=text, speaker=voice.speaker, **labels))

    def chatty(self, text: str) -> str:
        opener, closer = self.rng.choice(tp.CHAT_OPENERS), self.rng.choice(tp.CHAT_CLOSERS)
        if opener and text.split(" ", 1)[0] in LOWER_AFTER_OPENER:
            text = text[0].lower() + text[1:]
        if closer == "!":
            text = text.rstrip(".") + "!"
        elif closer:
            text = text + closer
        return opener + text

    def voice_for(self, subject: str, who: Who, speakers: list[str]) -> Voice:
        """In a chat a person speaks about themself, or another speaker about them."""
        if not speakers:
            return Voice(None, who)
        if subject in speakers and self.rng.random() < 0.8:
            return Voice(subject, Who(subject, True, who.gender))
        others = [s for s in speakers if s != subject] or speakers
        return Voice(self.rng.choice(others), Who(who.name, False, who.gender))

    def pick(self, templates: list[str]) -> tuple[str, bool]:
        return pick(self.rng, templates, self.bank.split)

    def pool(self, attribute: str, kind: AttributeBank, who: Who) -> list[str]:
        if attribute == "partner":
            return [self.g.other(self.bank) for _ in range(4)]
        if attribute == "email":
            return email_values(who.name if not who.first else "me", self.rng)
        if attribute == "manager":
            picked = self.rng.sample(kind["values"], 4)
            self.bank.people.update(picked)
            return picked
        return list(kind["values"])

    def chain(
        self, subject: str, who: Who, attribute: str, speakers: list[str], kid: tuple[str, str]
    ) -> None:
        """One attribute history of a person, with its related episodes and distractors."""
        sub = self.rng.choice(sorted(tp.PREFERENCES)) if attribute == "preference" else None
        kind = attribute_bank(attribute, sub)
        pool = self.pool(attribute, kind, who)
        length = 3 if self.rng.random() < 0.35 else 2
        if attribute == "job_title":
            ladder, other = self.rng.sample(pool, 2)
            values, spare = ladder.split("|")[3 - length :], other.split("|")[0]
        else:
            values = self.rng.sample(pool, length + 1)
            values, spare = values[:length], values[length]
        days = self.g.days(length)
        label = subject if attribute != "school" else kid[0]
        chain_id = f"{self.bank.id}:{label}:{attribute}:{sub or ''}"
        intro = {"K": f"{{p}} {kid[1]} {kid[0]}"}
        thing = self.rng.choice(tp.PERSONAL_DEADLINES)
        for k, (value, day) in enumerate(zip(values, days, strict=True)):
            old = values[k - 1] if k else None
            cueless = k == 0 or self.rng.random() < 0.35
            states = kind["state"] + (kind.get("first", []) if k == 0 else [])
            template, held = self.pick(states if cueless else kind["update"])
            extra = {**value_slots(attribute, value, old), "K": kid[0], "X": spare, "D": thing}
            if k == 0:
                template = template.replace("{K}", intro["K"].replace("{p}", "{P}"), 1)
            role = "update_old" if k == 0 else "update_new"
            self.add(
                template,
                self.voice_for(subject, who, speakers),
                extra,
                day=day,
                subject=label,
                role=role,
                attribute=attribute,
                chain=chain_id,
                value=value,
                cue=None if k == 0 else not cueless,
                held_out=held,
            )
        self.restatement(
            subject,
            who,
            attribute,
            kind,
            values,
            days,
            speakers,
            chain_id,
            {"K": kid[0], "D": thing},
        )
        self.related(subject, who, attribute, values, days, spare, speakers, kid)

    def restatement(
        self,
        subject: str,
        who: Who,
        attribute: str,
        kind: AttributeBank,
        values: list[str],
        days: list[float],
        speakers: list[str],
        chain_id: str,
        names: dict[str, str],
    ) -> None:
        if self.rng.random() < 0.45 or not kind["restate"]:
            return
        at = self.rng.randrange(len(values))
        hi = days[at + 1] if at + 1 < len(days) else SPAN_DAYS + 30
        day = round(self.rng.uniform(days[at], hi), 3)
        template, held = self.pick(kind["restate"])
        extra = {**value_slots(attribute, values[at], None), **names}
        self.add(
            template,
            self.voice_for(subject, who, speakers),
            extra,
            day=day,
            subject=names["K"] if attribute == "school" else subject,
            role="restatement",
            attribute=attribute,
            chain=chain_id,
            value=values[at],
            held_out=held,
        )

    def related(
        self,
        subject: str,
        who: Who,
        attribute: str,
        values: list[str],
        days: list[float],
        spare: str,
        speakers: list[str],
        kid: tuple[str, str],
    ) -> None:
        """Episodes around the attribute (naming its value of the time) and other people."""
        base = tp.ATTRIBUTES[attribute if attribute in tp.ATTRIBUTES else "preference"]
        label = kid[0] if attribute == "school" else subject
        for _ in range(self.rng.choice([1, 2, 2])):
            if not base["related"]:
                break
            day = self.g.days(1, days[0] + 1)[0]
            current = values[sum(1 for d in days if d <= day) - 1]
            template, held = self.pick(base["related"])
            extra = {**value_slots(attribute, current, None), "K": kid[0], "X": spare}
            role = "feeling" if "happy" in template else "episode"
            self.add(
                template,
                self.voice_for(subject, who, speakers),
                extra,
                day=day,
                subject=label,
                role=role,
                held_out=held,
            )
        if base["other_subject"] and self.rng.random() < 0.75:
            template, held = self.pick(base["other_subject"])
            n = self.g.other(self.bank)
            extra = {
                **value_slots(attribute, spare, None),
                "N": n,
                "X": spare.split("|")[0],
                "N_email": f"{n.lower()}@mx.example",
            }
            self.add(
                template,
                self.voice_for(subject, who, speakers),
                extra,
                day=self.g.days(1)[0],
                subject=n,
                role="other_subject",
                held_out=held,
            )
        if base["other_attribute"] and self.rng.random() < 0.6:
            template, held = self.pick(base["other_attribute"])
            extra = {"X": self.rng.choice(tp.CITIES), "K": kid[0]}
            self.add(
                template,
                self.voice_for(subject, who, speakers),
                extra,
                day=self.g.days(1)[0],
                subject=label,
                role="other_attribute",
                held_out=held,
            )

    def single_fact(self, subject: str, who: Who, taken: set[str], speakers: list[str]) -> None:
        """A fact about an attribute that never changes: it must stay current."""
        choices = [
            a
            for a in (
                "residence",
                "employer",
                "phone",
                "car",
                "diet",
                "pet",
                "manager",
                "job_title",
            )
            if a not in taken
        ]
        attribute = self.rng.choice(choices)
        kind = tp.ATTRIBUTES[attribute]
        value = self.rng.choice(self.pool(attribute, kind, who)).split("|")[0]
        if attribute in ("pet", "car"):
            value = self.rng.choice(kind["values"])
        template, held = self.pick(kind["state"])
        extra = value_slots(attribute, value, None)
        self.add(
            template,
            self.voice_for(subject, who, speakers),
            extra,
            day=self.g.days(1)[0],
            subject=subject,
            role="other_attribute",
            attribute=attribute,
            value=value,
            held_out=held,
        )

    def everyday(self, subject: str, who: Who, speakers: list[str]) -> None:
        for role, bank, counts in (
            ("episode", tp.EPISODES, [2, 3, 3]),
            ("feeling", tp.FEELINGS, [1, 2]),
            ("action", tp.ACTIONS, [1, 2]),
        ):
            for _ in range(self.rng.choice(counts)):
                template, held = self.pick(bank)
                self.add(
                    template,
                    self.voice_for(subject, who, speakers),
                    {},
                    day=self.g.days(1)[0],
                    subject=subject,
                    role=role,
                    held_out=held,
                )

    def person(self, subject: str, who: Who, speakers: list[str]) -> None:
        taken: set[str] = set()
        for _ in range(self.rng.choice([3, 3, 4])):
            taken.add(self.g.next_attribute(taken, self.bank.split))
        kid = self.g.kids.pop() if "school" in taken else ("", "")
        self.bank.people.add(kid[0])
        for attribute in sorted(taken):
            self.chain(subject, who, attribute, speakers, kid)
        self.single_fact(subject, who, taken, speakers)
        self.everyday(subject, who, speakers)

    def thing(self, speakers: list[str]) -> None:
        """A project (deadline, lead) or a device (a setting), written about by anyone."""
        nobody = Who("", False)
        if self.rng.random() < 0.6:
            name = self.g.projects.pop()
            histories = [("deadline", tp.DEADLINE_THING)]
            if self.rng.random() < 0.5:
                histories.append(("manager", tp.LEAD_THING))
            names = {"Tn": name, "T": f"the {name} project", "X_project": self.g.projects[-1]}
        else:
            _, labels, kind = self.rng.choice(tp.DEVICES)
            name = self.rng.choice(labels)
            histories = [("setting", kind)]
            names = {"Tn": name, "T": name, "X_project": ""}
        for attribute, kind in histories:
            self.thing_chain(name, attribute, kind, names, nobody, speakers)

    def thing_chain(
        self,
        name: str,
        attribute: str,
        kind: AttributeBank,
        names: dict[str, str],
        nobody: Who,
        speakers: list[str],
    ) -> None:
        pool = self.pool(attribute, kind, nobody)
        length = 3 if self.rng.random() < 0.35 else 2
        values = self.rng.sample(pool, length + 1)
        values, spare = values[:length], values[length]
        days = self.g.days(length)
        chain_id = f"{self.bank.id}:{name}:{attribute}:"
        for k, (value, day) in enumerate(zip(values, days, strict=True)):
            cueless = k == 0 or self.rng.random() < 0.35
            template, held = self.pick(kind["state"] if cueless else kind["update"])
            extra = {**names, "V": value, "O": values[k - 1] if k else "", "X": spare}
            voice = Voice(self.rng.choice(speakers) if speakers else None, nobody)
            self.add(
                template,
                voice,
                extra,
                day=day,
                subject=name,
                role="update_old" if k == 0 else "update_new",
                attribute=attribute,
                chain=chain_id,
                value=value,
                cue=None if k == 0 else not cueless,
                held_out=held,
            )
        for role, templates, n in (
            ("episode", kind["related"], 2),
            ("other_subject", kind["other_subject"], 1),
            ("other_attribute", kind["other_attribute"], 1),
        ):
            for _ in range(n if templates else 0):
                template, held = self.pick(templates)
                extra = {**names, "V": values[-1], "X": spare}
                voice = Voice(self.rng.choice(speakers) if speakers else None, nobody)
                subject = names["X_project"] if role == "other_subject" else name
                self.add(
                    template,
                    voice,
                    extra,
                    day=self.g.days(1)[0],
                    subject=subject,
                    role="feeling" if "happy" in template else role,
                    held_out=held,
                )


def build(g: Generator, bank: Bank) -> None:
    b = BankBuilder(g, bank)
    count = {"notes": 3, "user": 2, "chat": 2}[bank.voice]
    people = [g.names.pop() for _ in range(count)]
    bank.people.update(n for n, _ in people)
    speakers = [n for n, _ in people] if bank.voice == "chat" else []
    for i, (name, gender) in enumerate(people):
        if bank.voice == "user" and i == 0:
            b.person("user", Who("user", True, gender), [])
        else:
            b.person(name, Who(name, False, gender), speakers)
    b.thing(speakers)


def label(bank: Bank) -> None:
    """Ids in time order; each state's gold superseder is the chain's next other value."""
    bank.statements.sort(key=lambda s: s.day)
    for i, s in enumerate(bank.statements):
        s.id = f"{bank.id}-{i:03d}"
    chains: dict[str, list[Statement]] = {}
    for s in bank.statements:
        if s.chain:
            chains.setdefault(s.chain, []).append(s)
    for members in chains.values():
        for i, s in enumerate(members):
            later = [m for m in members[i + 1 :] if m.value != s.value and m.role == "update_new"]
            s.superseded_by = later[0].id if later else None


def entities(bank: Bank, s: Statement) -> list[str]:
    found = [n for n in sorted(bank.people - {""}) if re.search(rf"\b{re.escape(n)}\b", s.text)]
    return found


def to_json(bank: Bank, rng: random.Random) -> dict[str, Any]:
    arrival = list(bank.statements)
    rng.shuffle(arrival)
    return {
        "id": bank.id,
        "voice": bank.voice,
        "statements": [
            {
                "id": s.id,
                "text": s.text,
                "occurred_at": (START + timedelta(days=s.day)).isoformat().replace("+00:00", "Z"),
                "entities": entities(bank, s),
                "subject": s.subject,
                "attribute": s.attribute,
                "role": s.role,
                "chain": s.chain,
                "value": s.value.split("|")[0] if s.value else None,
                "superseded_by": s.superseded_by,
                "cue": s.cue,
                "held_out": s.held_out,
            }
            for s in arrival
        ],
    }


VOICES = ["notes", "notes", "user", "user", "chat", "chat"]


def generate(seed: int = SEED) -> dict[str, dict[str, Any]]:
    g = Generator(seed)
    halves: dict[str, list[dict[str, Any]]] = {"dev": [], "test": []}
    for i in range(BANKS):
        split = "dev" if i % 2 == 0 else "test"
        bank = Bank(f"{split}{i // 2:02d}", split, VOICES[i % len(VOICES)])
        build(g, bank)
        label(bank)
        halves[split].append(to_json(bank, g.rng))
    note = (
        "Made-up statements for `sediment-bench supersession` (bench/supersession_gen.py, "
        f"seed {seed}); statements are listed in arrival order, which is not time order."
    )
    return {
        split: {"name": f"supersession-{split}", "split": split, "note": note, "banks": banks}
        for split, banks in halves.items()
    }


def main() -> None:
    out = Path(__file__).parent / "data"
    for split, data in generate().items():
        path = out / f"supersession_{split}.json"
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
