"""Which reader finds each update of a supersession corpus, by family.

Consolidation decides "the same attribute with a new value" with three readers: the
attribute rules (`worker/consolidation/updates.py`), the statement reader's
(`readmodel.reading.thing_update`) and the frame reader's kinds of evidence
(`worker/consolidation/openupdates.py`). This puts every time-ordered pair of each bank
through each of them alone, so that one can see what a reader carries by itself before
another is taken out: per family, the gold updates each finds, those only it finds, and
the pairs it relates that no gold edge names (within one chain of updates an older
state replaced by a later one is no false pair). Pairs are taken whole: the store only
compares the neighbours it reads by key, so a count here is what a reader could find.

Run with `python -m bench.update_rules [CORPUS.json ...]` (default: the shipped dev
halves of the update corpus and the supersession benchmark).
"""

import argparse
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from readmodel.reading import another_occurrence, thing_update
from worker.consolidation import openupdates
from worker.consolidation.features import TextFeatures, computed
from worker.consolidation.updates import implicit_update

DATA = Path(__file__).parent / "data"
DEFAULT = (DATA / "updates_corpus_dev.json", DATA / "supersession_dev.json")
_SPEAKER = re.compile(r"^(?:User|Assistant): ")

Rule = Callable[[TextFeatures, TextFeatures], object]
RULES: dict[str, Rule] = {
    "attribute": lambda o, n: implicit_update(o.statement, n.statement),
    "reader.thing": lambda o, n: thing_update(o.reading, n.reading),
    "frame.value": lambda o, n: o.open and n.open and openupdates.frame_change(o.open, n.open),
    "frame.ended": lambda o, n: o.open and n.open and openupdates.ended_value(o.open, n.open),
    "frame.role": lambda o, n: o.open and n.open and openupdates.role_change(o.open, n.open),
    "frame.kind": lambda o, n: o.open and n.open and openupdates.kind_change(o.open, n.open),
}


def _compared(o: TextFeatures, n: TextFeatures) -> bool:
    """The pairs consolidation compares at all (`relations._update`'s guards)."""
    if o.several or another_occurrence(o.reading, n.reading):
        return False
    return not ((o.open and o.open.one_off) or (n.open and n.open.one_off))


def by_rule(paths: list[Path]) -> dict[str, Counter[str]]:
    """`gold` per family, and per rule `found:`, `only:` (per family) and `false:`."""
    out: dict[str, Counter[str]] = {"gold": Counter()}
    for name in RULES:
        out[f"found:{name}"], out[f"only:{name}"], out[f"false:{name}"] = (
            Counter(),
            Counter(),
            Counter(),
        )
    for path in paths:
        for bank in json.loads(path.read_text(encoding="utf-8"))["banks"]:
            _bank(bank["statements"], out)
    return out


def _bank(statements: list[dict[str, object]], out: dict[str, Counter[str]]) -> None:
    ordered = sorted(statements, key=lambda s: str(s["occurred_at"]))
    read = {
        str(s["id"]): computed(_SPEAKER.sub("", str(s["text"])), list(s["entities"]))  # type: ignore[call-overload]
        for s in ordered
    }
    for i, old in enumerate(ordered):
        for new in ordered[i + 1 :]:
            o, n = read[str(old["id"])], read[str(new["id"])]
            if not _compared(o, n):
                continue
            found = [name for name, rule in RULES.items() if rule(o, n)]
            family = str(old.get("family") or old.get("attribute") or "-")
            if old.get("superseded_by") == new["id"]:
                out["gold"][family] += 1
                for name in found:
                    out[f"found:{name}"][family] += 1
                if len(found) == 1:
                    out[f"only:{found[0]}"][family] += 1
            elif not (old.get("chain") and old.get("chain") == new.get("chain")):
                for name in found:
                    out[f"false:{name}"]["all"] += 1


def render(counts: dict[str, Counter[str]]) -> str:
    names = list(RULES)
    head = "| family | gold | " + " | ".join(f"{n} (only)" for n in names) + " |"
    lines = [head, "| --- " * (len(names) + 2) + "|"]
    for family in sorted(counts["gold"]):
        cells = [f"{counts[f'found:{n}'][family]} ({counts[f'only:{n}'][family]})" for n in names]
        lines.append(f"| {family} | {counts['gold'][family]} | " + " | ".join(cells) + " |")
    total = [
        f"{sum(counts[f'found:{n}'].values())} ({sum(counts[f'only:{n}'].values())})" for n in names
    ]
    lines.append(f"| all | {sum(counts['gold'].values())} | " + " | ".join(total) + " |")
    false = [str(counts[f"false:{n}"]["all"]) for n in names]
    lines.append("| pairs no gold edge names | | " + " | ".join(false) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", type=Path, nargs="*", default=list(DEFAULT))
    args = parser.parse_args(argv)
    print(render(by_rule(args.paths)))


if __name__ == "__main__":
    main()
