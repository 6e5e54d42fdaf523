"""The translation catalog: in step with the code, every string translated, and every
code the protocol names (errors, notices, items...) with words in both languages."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from gbmj_tui.i18n import fan_name, lang_from_env, tile_name, tr, wind_name
from gbmj_tui.words import ERRORS, ITEM_NAMES, ITEM_USES, NOTICES, error_text
from protocol.errors import ErrorCode
from protocol.fans import FANS
from protocol.tiles import Tile
from protocol.vocabulary import Item, NoticeCode

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "catalog.py"


def _catalog_module():
    spec = importlib.util.spec_from_file_location("catalog", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_catalog_is_in_step_with_the_code_and_fully_translated() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_every_marked_string_has_a_chinese_translation() -> None:
    catalog = _catalog_module()
    translations = catalog.read_translations()
    for (context, msgid), where in catalog.code_strings().items():
        if context is None:
            assert tr(msgid, "zh") != msgid or not any(c.isalpha() for c in msgid), (msgid, where)
        assert tr(msgid, "en") == msgid  # English is the msgid itself
    assert translations


def test_every_error_notice_and_item_has_words_in_both_languages() -> None:
    assert set(ERRORS) == set(ErrorCode)
    assert set(NOTICES) == set(NoticeCode)
    assert set(ITEM_NAMES) == set(Item) == set(ITEM_USES)
    for code in ErrorCode:
        zh, en = error_text(code, "zh"), error_text(code, "en")
        assert zh != en and not zh.isascii() and en.isascii(), code
    assert error_text("a_code_from_a_newer_server", "zh") == "a_code_from_a_newer_server"


def test_tiles_winds_and_fans_in_both_languages() -> None:
    assert tile_name(Tile.P5, "en") == "5 Dots" and tile_name(Tile.P5, "zh") == "五饼"
    assert tile_name(Tile.C, "en") == "Red" and tile_name(Tile.C, "zh") == "红中"
    assert tile_name(Tile.E, "en") == "East" and wind_name(Tile.E, "zh") == "东"
    for fan in FANS:
        assert fan_name(fan.id, "zh") == fan.name_zh and fan_name(fan.id, "en") == fan.name_en


def test_the_language_follows_the_locale() -> None:
    assert lang_from_env({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert lang_from_env({"LANG": "en_US.UTF-8"}) == "en"
    assert lang_from_env({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}) == "zh"
    assert lang_from_env({"LANG": "C"}) == "en" and lang_from_env({}) == "en"
