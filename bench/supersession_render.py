"""Rendering the supersession benchmark's templates (`bench/supersession_templates.py`):
who is speaking ("I" or a name, she or he), the `[first|third]` verb forms, value slots,
and which templates the dev half may use."""

import random
import re
from dataclasses import dataclass

HOLD_OUT_EVERY = 4


@dataclass
class Who:
    """How a subject is written: first person ("I") or a name, she or he."""

    name: str
    first: bool
    gender: str = "f"

    def slots(self) -> dict[str, str]:
        if self.first:
            return {
                "S": "I",
                "s": "I",
                "P": "My",
                "p": "my",
                "pp": "my",
                "pro": "I",
                "obj": "me",
                "o": "me",
            }
        she = self.gender == "f"
        return {
            "S": self.name,
            "s": self.name,
            "P": f"{self.name}'s",
            "p": f"{self.name}'s",
            "pp": "her" if she else "his",
            "pro": "she" if she else "he",
            "obj": "her" if she else "him",
            "o": self.name,
        }


def pick(rng: random.Random, templates: list[str], split: str) -> tuple[str, bool]:
    """A template; the held-out ones (positions 3, 7, ...) only in the test half."""
    allowed = [
        (t, i % HOLD_OUT_EVERY == HOLD_OUT_EVERY - 1)
        for i, t in enumerate(templates)
        if split == "test" or i % HOLD_OUT_EVERY != HOLD_OUT_EVERY - 1
    ]
    return rng.choice(allowed)


def render(template: str, who: Who, extra: dict[str, str]) -> str:
    text = re.sub(
        r"\[([^|\]]*)\|([^\]]*)\]", lambda m: m.group(1) if who.first else m.group(2), template
    )
    text = text.format_map({**who.slots(), **extra})
    return text[0].upper() + text[1:]


def article(value: str) -> str:
    return ("an " if value[0].lower() in "aeiou" else "a ") + value


def value_slots(attribute: str, value: str, old: str | None) -> dict[str, str]:
    """Placeholders for a value: pets and cars carry a short name, titles an article."""
    slots = {"V": value, "O": old or ""}
    if attribute == "pet":
        kind, name = value.split("|")
        slots.update(V=f"{kind} named {name}", Va=kind, Vn=name, Vk=kind.split(" ", 1)[1])
        if old:
            slots.update(On=old.split("|")[1], O=old.split("|")[1])
    elif attribute == "car":
        full, short = value.split("|")
        slots.update(V=full, Vs=short)
        if old:
            slots.update(O=old.split("|")[0], Os=old.split("|")[1])
    elif attribute == "job_title":
        slots.update(aV=article(value))
    return slots


def email_values(name: str, rng: random.Random) -> list[str]:
    low = name.lower()
    domains = rng.sample(["mailbox.example", "kraken.example", "post.example", "mx.example"], 3)
    return [
        f"{low}@{domains[0]}",
        f"{low}.{rng.randint(10, 99)}@{domains[1]}",
        f"{low[0]}.{low}@{domains[2]}",
        f"{low}.home@{domains[0]}",
    ]
