"""Interface text in Chinese and English: one gettext catalog.

Every string the client shows is written in English where it is used (the gettext
``msgid``: ``tr("Your turn", lang)``, or ``N_("...")`` for a string kept in a table
and translated where it is shown) and translated to Chinese in
``gbmj_tui/locale/zh/LC_MESSAGES/gbmj.po``. English needs no catalog: the msgid is the
English text. Fan names come from the protocol's fan table (``protocol/fans.json``) and
Chinese tile names from ``protocol.tiles``; ``scripts/catalog.py`` writes them into the
catalog (context ``fan`` and ``tile``) and compiles the ``.mo`` file that the standard
``gettext`` module reads at run time, so the client needs no build step and no package
beyond the standard library to speak Chinese. A test keeps the ``.po``, the ``.mo`` and
the code in step.

The language is a value handed down (``lang``), not a process-wide setting: two apps
in one process (the tests) may speak different languages.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from protocol.fans import FAN_BY_ID
from protocol.tiles import FLOWER_EN, Tile

DOMAIN = "gbmj"
LOCALE_DIR = Path(__file__).parent / "locale"
LANGS = ("zh", "en")


@cache
def _catalog(lang: str) -> gettext.NullTranslations:
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)


def tr(msgid: str, lang: str) -> str:
    """``msgid`` (English) in ``lang``."""
    return _catalog(lang).gettext(msgid)


def trp(context: str, msgid: str, lang: str) -> str:
    """``msgid`` in ``lang`` where the same English word needs its own translation."""
    return _catalog(lang).pgettext(context, msgid)


def N_(msgid: str) -> str:
    """Marks a string for the catalog; it is translated where it is shown."""
    return msgid


def lang_from_env(env: Mapping[str, str] = os.environ) -> str:
    """``zh`` when the locale asks for Chinese (``LC_ALL``, ``LC_MESSAGES``, ``LANG``,
    gettext's order), else ``en``."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value and value not in ("C", "POSIX"):
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


# -- tiles, winds, fans: names from the protocol's tables ------------------------------------
_SUIT_EN = ("Characters", "Dots", "Bamboo")
_HONOR_EN = ("East", "South", "West", "North", "Red", "Green", "White")


def _tile_en(code: int) -> str:
    if code < 27:
        return f"{code % 9 + 1} {_SUIT_EN[code // 9]}"
    if code < 34:
        return _HONOR_EN[code - 27]
    return FLOWER_EN[code - 34]


TILE_NAMES_EN: tuple[str, ...] = tuple(_tile_en(t) for t in Tile)


def tile_name(tile: int, lang: str) -> str:
    """``5 Dots`` / ``五饼``, ``Red`` / ``红中``, ``Spring`` / ``春``."""
    return trp("tile", TILE_NAMES_EN[tile], lang)


def wind_name(wind: int, lang: str) -> str:
    """A seat's or a round's wind in one word: ``东`` / ``East``."""
    return trp("wind", _HONOR_EN[(wind - Tile.E) % 4], lang)


def wind_letter(wind: int, lang: str) -> str:
    """A wind where room is short (seat labels): ``东`` / ``E``."""
    return trp("wind letter", "ESWN"[(wind - Tile.E) % 4], lang)


def fan_name(fan_id: int, lang: str) -> str:
    """A fan's name in ``lang`` (the fan table holds both)."""
    return trp("fan", FAN_BY_ID[fan_id].name_en, lang)
