"""Text tiles: fixed width in both styles, every tile carries text, suit colours."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from gbmj_tui.tiles import (
    TILE_STYLES,
    TILE_WIDTH,
    TileStyle,
    concealed_count,
    face,
    face_down,
    row_width,
    style_name,
    tile_row,
    tile_text,
    tiles_label,
)
from protocol.tiles import ALL_TILES, Tile


@pytest.mark.parametrize("style", list(TileStyle))
def test_every_face_is_four_columns(style: TileStyle) -> None:
    for tile in ALL_TILES:
        assert cell_len(face(tile, style)) == TILE_WIDTH, (tile, face(tile, style))
    assert cell_len(face_down(style)) == TILE_WIDTH


@pytest.mark.parametrize("style", list(TileStyle))
def test_faces_are_distinct_and_carry_text(style: TileStyle) -> None:
    faces = [face(t, style) for t in ALL_TILES]
    assert len(set(faces)) == len(faces)
    assert all(f.strip() for f in faces)
    assert face_down(style) not in faces


def test_cjk_faces() -> None:
    assert face(Tile.M5) == "五万"
    assert face(Tile.P3) == "三饼"
    assert face(Tile.S7) == "七条"
    assert face(Tile.E) == " 东 "
    assert face(Tile.C) == " 中 "
    assert face(Tile.F) == " 发 "
    assert face(Tile.P) == " 白 "
    assert face(Tile.F1) == " 春 "
    assert face(Tile.F8) == " 菊 "


def test_ascii_faces_are_plain_ascii() -> None:
    assert face(Tile.M5, TileStyle.ASCII) == " 5m "
    assert face(Tile.P3, TileStyle.ASCII) == " 3p "
    assert face(Tile.E, TileStyle.ASCII) == " E  "
    assert face(Tile.F3, TileStyle.ASCII) == " f3 "
    # dragons are words: a bare F reads as a flower, C and P as nothing
    dragons = [face(t, TileStyle.ASCII) for t in (Tile.C, Tile.F, Tile.P)]
    assert dragons == ["Red ", "Grn ", "Wht "]
    for tile in ALL_TILES:
        assert face(tile, TileStyle.ASCII).isascii()
    assert face_down(TileStyle.ASCII).isascii()


def test_style_names_follow_the_suit() -> None:
    assert style_name(Tile.M1) == "characters"
    assert style_name(Tile.P9) == "dots"
    assert style_name(Tile.S5) == "bamboo"
    assert style_name(Tile.N) == "wind"
    assert style_name(Tile.C) == "dragon-red"
    assert style_name(Tile.F) == "dragon-green"
    assert style_name(Tile.P) == "dragon-white"
    assert style_name(Tile.F5) == "flower"
    colours = {TILE_STYLES[n].color for n in ("characters", "dots", "bamboo")}
    assert len(colours) == 3


def test_tile_text_styles() -> None:
    plain = tile_text(Tile.M5)
    assert plain.plain == "五万"
    assert plain.style == TILE_STYLES["characters"]
    selected = tile_text(Tile.M5, selected=True)
    assert selected.style != plain.style
    assert tile_text(Tile.M5, marked=True).style.reverse
    assert tile_text(None).plain == face_down()


@pytest.mark.parametrize("style", list(TileStyle))
def test_rows_have_predictable_widths(style: TileStyle) -> None:
    tiles = [Tile.M1, Tile.P2, Tile.S3, Tile.E, Tile.C, None]
    for gap in (0, 1):
        row = tile_row(tiles, style, gap=gap)
        assert row.cell_len == row_width(len(tiles), gap)
    assert row_width(6, 1) == 29
    assert row_width(0) == 0


def test_row_marks_one_tile() -> None:
    row = tile_row([Tile.M1, Tile.M2, Tile.M3], selected=1, marked=2)
    spans = {row.plain[s.start : s.end]: s.style for s in row.spans}
    assert spans["二万"].underline
    assert spans["三万"].reverse
    assert not spans["一万"].reverse


def test_concealed_count() -> None:
    assert concealed_count(13).plain == "〓〓x13"
    assert concealed_count(4, TileStyle.ASCII).plain == "####x4 "


def test_tiles_label() -> None:
    assert tiles_label([Tile.M3, Tile.M4, Tile.M5]) == "三四五万"
    assert tiles_label([Tile.E, Tile.E, Tile.E]) == "东东东"
    assert tiles_label([Tile.P1, Tile.P2, Tile.P3], TileStyle.ASCII) == "1p 2p 3p"
    assert tiles_label([Tile.C, Tile.C, Tile.C], TileStyle.ASCII) == "Red Red Red"
