"""Counts in words, as every command prints them: "1 event", "2 events"."""


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """`n` and the noun that agrees with it (`plural` where adding "s" is wrong)."""
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"
