"""Write the client's own SVG screenshot of a table with a claim open (the README's
picture) to docs/screenshot.svg.

    uv run python scripts/screenshot.py [--lang en|zh] [--size 110x34] [--out FILE]

The table is the tests' sample view (tests/tui/tui_sample.py) in the real app, without
a server; the picture is Textual's ``export_screenshot``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "tui"))

from tui_harness import OfflineApp  # noqa: E402
from tui_sample import claim_prompt, sample_view  # noqa: E402


async def shot(lang: str, size: tuple[int, int]) -> str:
    app = OfflineApp(replace(claim_prompt(sample_view()), table_id=7), lang=lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.3)
        return app.export_screenshot(title="gbmj: a claim open at the table")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--size", default="110x34")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot.svg")
    args = parser.parse_args()
    width, height = (int(x) for x in args.size.split("x"))
    args.out.write_text(asyncio.run(shot(args.lang, (width, height))), "utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
