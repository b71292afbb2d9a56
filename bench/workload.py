"""A deterministic generator of realistic retain events for the speed and scale
benchmarks: many subjects per bank, facts about them, updates of those facts (in
time order and not), restatements, and episodes full of change words.

The same seed, bank count and size give the same events, ids included, so two runs
(and two systems) see the same stream.
"""

import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Final

from contracts.events import RetainEvent

NAMESPACE = uuid.UUID("5f0c2f3e-2b1d-5a7e-9c41-7d2b8e6a1f03")
START = datetime(2023, 1, 1, tzinfo=UTC)

FIRST = (
    "Ana Ben Chloe Dev Elif Farid Greta Hugo Ines Jonas Kira Luis Maya Noor Omar Pia Quinn "
    "Rosa Sami Tara Ugo Vera Wen Xavi Yara Zoe"
).split()
_STEMS = "Al Bel Cor Dal Fen Gar Hal Kes Lun Mar Nor Os Per Ras Sol Tor Val Wes".split()
_ENDS = "ton berg ova ez ini sen ard well ski ani".split()
LAST = "Silva Okafor Novak Haddad Tanaka Moreau Berg Costa Ivanova Park".split() + [
    stem + end for stem in _STEMS for end in _ENDS
]
"""190 family names, 4,940 full names: enough for 40 subjects per 1,000 events in a
bank of 100,000 (ten family names gave 260, so a large bank told the same 260 lives
hundreds of times over)."""
CITIES = "Porto Lyon Seattle Boston Lisbon Osaka Nairobi Quito Oslo Tunis Hanoi Perth".split()
EMPLOYERS = "Acme Globex Initech Umbrella Hooli Vandelay Stark Wayne Wonka Tyrell".split()
PETS = "a cat named Pepper|a beagle|two goldfish|a parrot|a rescue greyhound".split("|")
FOODS = "vegetarian|vegan|pescatarian|keto|gluten-free".split("|")
HOBBIES = "climbing|the cello|chess|sourdough baking|trail running|pottery|birdwatching".split("|")
OBJECTS = "the car|the sofa|the bike|the desk|the plant|the bookshelf|the fridge".split("|")
FEELINGS = "happy|relieved|tired|excited|anxious|proud|calm".split("|")

FACTS = (
    ("residence", "{p} lives in {city}.", "{p} moved to {city}."),
    ("employer", "{p} works at {employer}.", "{p} switched jobs and now works at {employer}."),
    ("pet", "{p} has {pet}.", "{p} got {pet} and no longer has the old pet."),
    ("diet", "{p} eats {food}.", "{p} is {food} now."),
)
EPISODES = (
    "{p} moved {obj} to the other side of the room.",
    "{p} felt {feeling} after a long walk in the rain.",
    "{p} changed the batteries in {obj} remote this morning.",
    "{p} started reading a new book about {hobby} on the train.",
    "{p} was {feeling} when the package finally arrived.",
    "{p} switched seats on the bus to sit by the window.",
    "{p} spent the afternoon on {hobby} with a friend.",
    "{p} replaced a broken light bulb in the kitchen.",
)


def people(rng: random.Random, n: int) -> list[str]:
    names = [f"{f} {last}" for last in LAST for f in FIRST]
    rng.shuffle(names)
    return names[:n]


def _fill(template: str, rng: random.Random, person: str) -> str:
    return template.format(
        p=person,
        city=rng.choice(CITIES),
        employer=rng.choice(EMPLOYERS),
        pet=rng.choice(PETS),
        food=rng.choice(FOODS),
        hobby=rng.choice(HOBBIES),
        obj=rng.choice(OBJECTS),
        feeling=rng.choice(FEELINGS),
    )


def _text(rng: random.Random, person: str) -> str:
    """Half episodes, a third facts, the rest updates of a fact."""
    roll = rng.random()
    if roll < 0.5:
        return _fill(rng.choice(EPISODES), rng, person)
    _, fact, update = rng.choice(FACTS)
    return _fill(fact if roll < 0.83 else update, rng, person)


STEP_MINUTES: Final = 90
STEP: Final = timedelta(minutes=STEP_MINUTES)
"""How far apart in time a bank's consecutive events are, on average."""


def events(
    bank_count: int, per_bank: int, seed: int = 7, start: datetime = START
) -> Iterator[RetainEvent]:
    """`per_bank` events in each of `bank_count` banks, interleaved as producers would
    send them; about 40 subjects per 1,000 events in a bank (each event names its
    subject by full name, as an entity extractor would), one every `STEP` from
    `start` (2,000 events span a year) and delivered slightly out of time order. A
    stream that continues a bank's history starts where the last one ended
    (`after`); two streams from the same `start` are one history told twice, the
    second a backfill of the first's time span."""
    rng = random.Random(seed)
    subjects = max(8, per_bank // 25)
    crowd = [people(rng, min(subjects, len(FIRST) * len(LAST))) for _ in range(bank_count)]
    for i in range(per_bank):
        for b in range(bank_count):
            person = rng.choice(crowd[b])
            minutes = i * STEP_MINUTES + rng.randint(-600, 600)
            bank = f"bench-{b:03d}"
            text = _text(rng, person)
            yield RetainEvent(
                event_id=uuid.uuid5(NAMESPACE, f"{seed}:{bank}:{i}"),
                bank_id=bank,
                text=text,
                occurred_at=start + timedelta(minutes=max(0, minutes)),
                entities=[person],
            )


def after(count: int, start: datetime = START) -> datetime:
    """Where a stream of `count` events from `start` ends: the next one's `start`."""
    return start + STEP * count


def queries(bank_count: int, n: int, seed: int = 11) -> list[tuple[str, str]]:
    """(bank, query) pairs about the generated subjects."""
    rng = random.Random(seed)
    asks = (
        "Where does {p} live?",
        "Who does {p} work for?",
        "What pet does {p} have?",
        "What did {p} do with {obj}?",
        "When was {p} {feeling}?",
    )
    crowd = people(random.Random(7), len(FIRST) * len(LAST))
    out = []
    for _ in range(n):
        bank = f"bench-{rng.randrange(bank_count):03d}"
        out.append((bank, _fill(rng.choice(asks), rng, rng.choice(crowd[:40]))))
    return out
