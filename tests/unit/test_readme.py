"""The README is a first page, not the manual: it stays short enough to read in one
sitting, and what does not fit goes to docs/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 220


def test_the_readme_is_at_most_220_lines() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, (
        f"README.md has {len(lines)} lines, over {MAX_LINES}: move detail to docs/"
    )
