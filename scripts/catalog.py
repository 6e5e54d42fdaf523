"""Keep the client's translation catalog in step with the code, and compile it.

    uv run python scripts/catalog.py          # update the .po, compile the .mo
    uv run python scripts/catalog.py --check  # exit 1 if either is out of step

Every string the client shows is an English msgid in the code: the first argument of
``tr(...)``, ``N_(...)`` or ``_line(...)`` (the action line's), the second of
``trp(context, ...)`` (both branches of a
``x if c else y`` too). This script collects them from ``gbmj_tui/``, adds the names
that come from the protocol's tables (fans with context ``fan``, tiles ``tile``, winds
``wind`` and ``wind letter``), merges them into ``gbmj_tui/locale/zh/LC_MESSAGES/
gbmj.po`` (keeping every translation made, dropping strings the code no longer uses)
and compiles ``gbmj.mo``, which the standard ``gettext`` module reads at run time. The
``.mo`` is kept in the repository so the client needs no build step. The tests run
``--check``'s comparison and fail on an untranslated or stale entry.
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbmj_tui.i18n import LOCALE_DIR, TILE_NAMES_EN  # noqa: E402
from protocol.fans import FANS  # noqa: E402
from protocol.tiles import NAMES_ZH  # noqa: E402

PO = LOCALE_DIR / "zh" / "LC_MESSAGES" / "gbmj.po"
MO = PO.with_suffix(".mo")
SOURCE = ROOT / "gbmj_tui"
FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)  # a stable header: no churn in the files
WINDS_EN = ("East", "South", "West", "North")
Key = tuple[str | None, str]  # (context, msgid)


def _strings(node: ast.expr) -> Iterator[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.IfExp):
        yield from _strings(node.body)
        yield from _strings(node.orelse)


def code_strings(source: Path = SOURCE) -> dict[Key, str]:
    """Every msgid the code marks, with the first file that uses it."""
    found: dict[Key, str] = {}
    for path in sorted(source.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            name, args = node.func.id, node.args
            if name in ("tr", "N_", "_line") and args:
                keys = [(None, s) for s in _strings(args[0])]
            elif name == "trp" and len(args) >= 2 and isinstance(args[0], ast.Constant):
                keys = [(str(args[0].value), s) for s in _strings(args[1])]
            else:
                continue
            for key in keys:
                found.setdefault(key, str(path.relative_to(ROOT)))
    return found


def table_strings() -> dict[Key, str]:
    """The names from the protocol's tables, with their Chinese: generated, not typed."""
    out: dict[Key, str] = {("fan", f.name_en): f.name_zh for f in FANS}
    out.update({("tile", en): zh for en, zh in zip(TILE_NAMES_EN, NAMES_ZH, strict=True)})
    out.update({("wind", en): zh for en, zh in zip(WINDS_EN, "东南西北", strict=True)})
    out.update({("wind letter", en[0]): zh for en, zh in zip(WINDS_EN, "东南西北", strict=True)})
    return out


def read_translations(path: Path = PO) -> dict[Key, str]:
    if not path.exists():
        return {}
    with path.open("rb") as f:
        catalog = read_po(f, locale="zh")
    return {(m.context, str(m.id)): str(m.string) for m in catalog if m.id and m.string}


class _Catalog(Catalog):
    """Babel's catalog without the ``Generated-By`` header (a new Babel would make the
    files differ with nothing changed)."""

    @property
    def mime_headers(self) -> list[tuple[str, str]]:
        return [(k, v) for k, v in super().mime_headers if k != "Generated-By"]

    @mime_headers.setter
    def mime_headers(self, headers: list[tuple[str, str]]) -> None:
        Catalog.mime_headers.fset(self, headers)  # the base's


def build(translations: dict[Key, str]) -> Catalog:
    catalog = _Catalog(
        locale="zh",
        domain="gbmj",
        header_comment="# The gbmj client's Chinese text. Edit the msgstr lines; "
        "scripts/catalog.py\n# adds and drops entries as the code changes and compiles gbmj.mo.",
        project="gbmj",
        version="1",
        msgid_bugs_address="-",
        last_translator="gbmj",
        language_team="gbmj",
        creation_date=FIXED_DATE,
        revision_date=FIXED_DATE,
        fuzzy=False,
    )
    for (context, msgid), zh in table_strings().items():
        catalog.add(msgid, zh, context=context, auto_comments=["generated from protocol"])
    for (context, msgid), where in code_strings().items():
        if (context, msgid) not in table_strings():
            catalog.add(
                msgid, translations.get((context, msgid), ""), context=context,
                auto_comments=[where],
            )  # fmt: skip
    return catalog


def render(catalog: Catalog) -> tuple[bytes, bytes]:
    po, mo = io.BytesIO(), io.BytesIO()
    write_po(po, catalog, sort_output=True, omit_header=False, no_location=True, width=100)
    write_mo(mo, catalog)
    return po.getvalue(), mo.getvalue()


def missing(catalog: Catalog) -> list[str]:
    return sorted(str(m.id) for m in catalog if m.id and not m.string)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = parser.parse_args()
    catalog = build(read_translations())
    po, mo = render(catalog)
    untranslated = missing(catalog)
    for msgid in untranslated:
        print(f"untranslated: {msgid!r}", file=sys.stderr)
    if args.check:
        stale = not PO.exists() or PO.read_bytes() != po or not MO.exists() or MO.read_bytes() != mo
        if stale:
            print("the catalog is out of step: run scripts/catalog.py", file=sys.stderr)
        return 1 if stale or untranslated else 0
    PO.parent.mkdir(parents=True, exist_ok=True)
    PO.write_bytes(po)
    MO.write_bytes(mo)
    print(f"{len(catalog)} strings, {len(untranslated)} untranslated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
