"""`python -m bench.reliability`: run the fault suite, print and write docs/reliability.md
(and the raw figures in bench/results/reliability.json). `make reliability` runs it;
`--only NAME` runs one case and merges it into the figures of the last full run."""

import argparse
import json
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from bench.reliability.report import render, verdicts
from bench.reliability.suite import ALONE, QUICK, SuiteConfig, run_alone, run_suite

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.reliability", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (a few minutes)")
    parser.add_argument("--baseline", action="store_true", help="also measure recovery as before")
    parser.add_argument(
        "--only",
        action="append",
        choices=sorted(ALONE),
        help="run only this case (repeatable), merged into the last full run's --json",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "reliability.md")
    parser.add_argument(
        "--json", type=Path, default=ROOT / "bench" / "results" / "reliability.json"
    )
    for f in fields(SuiteConfig):
        if f.type in (int, float, "int", "float"):
            kind = int if f.type in (int, "int") else float
            parser.add_argument(f"--{f.name.replace('_', '-')}", type=kind, default=None)
    args = parser.parse_args(argv)
    base = QUICK if args.quick else SuiteConfig()
    overrides = {
        f.name: getattr(args, f.name)
        for f in fields(SuiteConfig)
        if getattr(args, f.name, None) is not None
    }
    config = SuiteConfig(**{**base.__dict__, **overrides, "baseline": args.baseline})
    if args.only:
        results = _merged(args.json, run_alone(args.only, config))
    else:
        results = run_suite(config, say=lambda line: print(f"-- {line}", flush=True))
    text = render(results)
    print(text)
    args.out.write_text(text, encoding="utf-8")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out} and {args.json}")
    return 0 if all(met for *_, met in verdicts(results)) else 1


def _merged(path: Path, cases: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if not path.exists():
        raise SystemExit(
            f"--only merges into a full run's figures; {path} is missing (run without --only first)"
        )
    results: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return {**results, **cases}


if __name__ == "__main__":
    sys.exit(main())
