"""The widgets' text: melds, pools, seat headers, the claim bar's options, fan tables."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.style import Style
from rich.text import Span, Text

from gbmj_tui.model import FanLine, MeldModel, PromptView, SeatModel
from gbmj_tui.tiles import HIGHLIGHTED, TAKEN, TileStyle, tile_lines
from gbmj_tui.widgets.claim import claim_options, turn_options
from gbmj_tui.widgets.countdown import bar_text
from gbmj_tui.widgets.fans import fan_table, fan_total, reference_table
from gbmj_tui.widgets.render import (
    LAST_MARK,
    TAKEN_MARK,
    counter_text,
    meld_lines,
    meld_text,
    pack,
    pool_text,
)
from gbmj_tui.widgets.seat import seat_body, seat_header
from protocol.fans import FANS
from protocol.messages import ActionChoice
from protocol.tiles import Tile as T
from protocol.vocabulary import ActionKind

ASCII = TileStyle.ASCII


def _style(span: Span) -> Style:
    return span.style if isinstance(span.style, Style) else Style.parse(span.style)


def _plain(renderable: object, width: int = 100) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_meld_shows_whom_it_was_claimed_from() -> None:
    chow = MeldModel("chow", T.S3, claimed_from=1, claimed_tile=T.S4)
    assert meld_text(chow).plain == "三条四条五条上"
    assert meld_text(chow, ASCII).plain == " 3s  4s  5s <"
    pung = MeldModel("pung", T.C, claimed_from=2, claimed_tile=T.C)
    assert meld_text(pung, ASCII).plain.endswith("^")
    assert meld_text(MeldModel("kong", T.E, claimed_from=3, claimed_tile=T.E)).plain.endswith("下")
    claimed = [s for s in meld_text(chow).spans if _style(s).underline]
    assert len(claimed) == 1 and meld_text(chow).plain[claimed[0].start : claimed[0].end] == "四条"


def test_concealed_kong_is_face_down() -> None:
    hidden = MeldModel("kong", None, concealed=True)
    assert meld_text(hidden).plain == "〓〓" * 4
    own = MeldModel("kong", T.P9, concealed=True)
    assert meld_text(own).plain == "〓〓九饼九饼〓〓"
    assert meld_text(own, ASCII).plain == "#### 9p  9p ####"


def test_pool_six_a_row_last_marked() -> None:
    discards = [T.M1, T.M2, T.M3, T.M4, T.M5, T.M6, T.M7, T.M8]
    text = pool_text(discards, ASCII, last=True, width=30)
    lines = text.plain.split("\n")
    assert len(lines) == 2
    assert lines[0] == " 1m   2m   3m   4m   5m   6m  "
    assert lines[1] == " 7m   8m *"
    marked = [s for s in text.spans if _style(s).reverse]
    assert len(marked) == 1 and text.plain[marked[0].start : marked[0].end] == " 8m "
    assert "*" not in pool_text(discards, ASCII, last=False).plain


def test_pool_tiles_never_touch_even_when_narrow() -> None:
    """Chinese faces fill their four columns (``五万``): a pool too narrow for six a row
    takes fewer, each still followed by a column of its own."""
    discards = [T.M8, T.M5, T.P4, T.M4, T.S7, T.S7, T.S1, T.S6]
    for width in (30, 25, 24, 12):
        rows = pool_text(discards, width=width).plain.split("\n")
        per_row = min(6, width // 5)
        assert [len(r.split()) for r in rows[:-1]] == [per_row] * (len(rows) - 1), width
        assert all(cell_len(r.rstrip()) <= width for r in rows)
    assert pool_text(discards, width=25).plain.split("\n")[0] == "八万 五万 四饼 四万 七条 "


def test_a_claimed_discard_stays_in_its_pool_marked_as_taken() -> None:
    discards = (T.M1, T.M4, T.P2, T.E)
    text = pool_text(discards, ASCII, taken=(1,), last=True, width=30)
    assert text.plain == " 1m   4m ~ 2p   E  *"
    struck = [s for s in text.spans if _style(s).strike]
    assert [text.plain[s.start : s.end] for s in struck] == [" 4m "]
    assert _style(struck[0]).color == TAKEN.color  # not the suit's colour: it is gone


def _cells(line: str) -> list[str]:
    """A line as the terminal's cells: a wide character, then an empty cell (its second)."""
    return [part for char in line for part in ((char, "") if cell_len(char) == 2 else (char,))]


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("style", [TileStyle.CJK, ASCII])
def test_a_mark_in_a_pool_never_runs_into_the_next_tile(style, big) -> None:
    """Claimed discards in a pool, in Chinese (faces that fill their four cells) and in
    English: each tile starts on a cell of its own, right after the mark of the tile
    before it or a gap, and the first thing on it that is not blank has a blank cell
    before it; each mark stands right after its own tile. No row passes its width."""
    discards = (T.M1, T.M2, T.M3, T.E, T.P5, T.P6, T.S7, T.S8)
    taken, width = (1, 4, 5), 30
    text = pool_text(discards, style, taken=taken, last=True, width=width, big=big)
    lines = text.plain.split("\n")
    middle = lines[1::3] if big else lines  # a big tile's face is its middle line
    marks = [
        LAST_MARK if i == len(discards) - 1 else TAKEN_MARK if i in taken else " "
        for i in range(len(discards))
    ]
    placed = 0
    for line in middle:
        cells = _cells(line)
        assert len(cells) <= width, line
        at = 0
        while "".join(cells[at:]).strip():  # each tile of the row, left to right
            block = tile_lines(discards[placed], style, big=big)
            face = _cells(block[len(block) // 2].plain)
            if placed and cells[at] == " " and cells[at : at + len(face)] != face:
                at += 1  # the gap after a mark
            assert cells[at : at + len(face)] == face, (line, at)  # on cells of its own
            glyph = at + next(i for i, c in enumerate(face) if c.strip())
            assert glyph == 0 or cells[glyph - 1] == " ", (line, glyph)  # apart from the mark
            at += len(face)
            mark = cells[at] if at < len(cells) else " "  # a blank at the end may be cropped
            assert mark == marks[placed], (line, at)  # its own mark, right after it
            at += 1
            placed += 1
    assert placed == len(discards)


def test_the_highlighted_tile_is_marked_in_pools_and_melds() -> None:
    pool = pool_text((T.M4, T.P2, T.M4), ASCII, highlight=T.M4, taken=(2,), width=30)
    assert _lit(pool) == [" 4m "]  # the taken copy is not on the table any more
    chow = MeldModel("chow", T.M3, claimed_from=1, claimed_tile=T.M4)
    assert _lit(meld_text(chow, ASCII, highlight=T.M4)) == [" 4m "]
    assert _lit(meld_text(chow, compact=True, highlight=T.M4)) == ["三四五万"]
    assert _lit(meld_text(chow)) == []


def _lit(text: Text) -> list[str]:
    return [
        text.plain[s.start : s.end] for s in text.spans if _style(s).bgcolor == HIGHLIGHTED.bgcolor
    ]


def test_a_big_tile_is_a_box_three_rows_high() -> None:
    assert [line.plain for line in tile_lines(T.M5, big=True)] == ["╭────╮", "│五万│", "╰────╯"]
    ascii = [line.plain for line in tile_lines(T.C, ASCII, big=True)]
    assert ascii == ["+----+", "|Red |", "+----+"]
    pool = pool_text((T.M1, T.M2, T.M3), ASCII, last=True, width=60, big=True).plain
    assert pool.split("\n") == [
        "+----+ +----+ +----+ ",
        "| 1m | | 2m | | 3m |" + LAST_MARK,
        "+----+ +----+ +----+ ",
    ]
    pung = meld_lines(MeldModel("pung", T.E, claimed_from=2, claimed_tile=T.E), ASCII, big=True)
    assert [line.plain for line in pung] == [
        "+----++----++----+ ",
        "| E  || E  || E  |^",
        "+----++----++----+ ",
    ]


def test_a_low_pool_keeps_the_newest_rows_and_counts_the_hidden() -> None:
    discards = tuple(T(i) for i in range(20))  # four rows: 6, 6, 6, 2
    assert len(pool_text(discards, ASCII, last=True, width=30).plain.split("\n")) == 4
    lines = pool_text(discards, ASCII, last=True, width=30, height=3).plain.split("\n")
    assert lines[0] == "+12"  # two rows of six hidden
    assert lines[-1].split() == [T(18).notation, T(19).notation, "*"]  # the newest, marked
    big = pool_text(discards, ASCII, width=60, height=6, big=True).plain.split("\n")
    assert big[0] == "+18" and len(big) == 4  # one row of big tiles (three lines) fits


def test_the_players_pool_sits_at_the_foot_of_its_place() -> None:
    text = pool_text((T.M1, T.M2), ASCII, width=30, height=4, bottom=True, centre=True).plain
    lines = text.split("\n")
    assert lines[:3] == ["", "", ""] and lines[3].strip() == "1m   2m"
    assert lines[3].startswith(" " * 10)  # in the middle of the width


def test_a_seat_writes_its_melds_short_when_that_saves_lines() -> None:
    seat = SeatModel(
        seat=1,
        melds=(
            MeldModel("pung", T.P3, claimed_from=1, claimed_tile=T.P3),
            MeldModel("chow", T.M1, claimed_from=1, claimed_tile=T.M2),
        ),
    )
    assert seat_body(seat, 40, TileStyle.CJK, "zh").plain == "三饼三饼三饼上 一万二万三万上"
    assert seat_body(seat, 25, TileStyle.CJK, "zh").plain == "三三三饼上 一二三万上"
    big = seat_body(seat, 60, TileStyle.CJK, "zh", big=True).plain.split("\n")
    assert len(big) == 3 and big[1].startswith("│三饼││三饼││三饼│上")


def test_pack_wraps_chunks_at_the_width() -> None:
    packed = pack([Text("aaaa"), Text("bbbb"), Text("cc")], width=9)
    assert packed.plain == "aaaa bbbb\ncc"


def test_seat_header() -> None:
    seat = SeatModel(seat=1, name="Bob", wind=T.W, score=-300, concealed_count=13, bot=True)
    assert seat_header(seat, dealer=True).plain == "[西] Bob (庄) -300 〓〓x13 <机器人>"
    assert seat_header(seat, show_count=False, style=ASCII, lang="en").plain == "[W] Bob -300 <bot>"


def test_claim_options_list_only_the_legal_choices_with_one_key_each() -> None:
    prompt = PromptView(
        actions=(
            ActionChoice(kind=ActionKind.WIN),
            ActionChoice(kind=ActionKind.PUNG),
            ActionChoice(kind=ActionKind.CHOW, tile=T.M2),
            ActionChoice(kind=ActionKind.CHOW, tile=T.M3),
        ),
        timer="claim_window",
        ms_left=5000,
        tile=T.M4,
        from_seat=3,
    )
    options = claim_options(prompt, TileStyle.CJK, "zh")
    assert [(o.key, o.label) for o in options] == [
        ("h", "和"),
        ("p", "碰"),
        ("1", "吃 二三四万"),
        ("2", "吃 三四五万"),
        ("space", "过"),
    ]
    assert options[2].choice == ActionChoice(kind=ActionKind.CHOW, tile=T.M2)
    only_pass = claim_options(
        PromptView(actions=(ActionChoice(kind=ActionKind.PASS),), timer="claim_window", ms_left=1),
        ASCII,
        "en",
    )
    assert [(o.key, o.label) for o in only_pass] == [("space", "Pass")]


def test_turn_options_kong_follows_the_selected_tile() -> None:
    prompt = PromptView(
        actions=(
            ActionChoice(kind=ActionKind.DISCARD, tile=T.E),
            ActionChoice(kind=ActionKind.CONCEALED_KONG, tile=T.E),
            ActionChoice(kind=ActionKind.ADDED_KONG, tile=T.C),
            ActionChoice(kind=ActionKind.WIN),
        ),
        timer="turn",
        ms_left=15000,
    )
    keys = {o.key: o for o in turn_options(prompt, T.C, ASCII, "en")}
    assert set(keys) == {"enter", "h", "g"}
    assert keys["g"].choice == ActionChoice(kind=ActionKind.ADDED_KONG, tile=T.C)
    assert turn_options(prompt, T.M1, ASCII, "en")[-1].choice == ActionChoice(
        kind=ActionKind.CONCEALED_KONG, tile=T.E
    )


def test_fan_table_totals_and_the_eight_fan_check() -> None:
    fans = (FanLine(49, 1), FanLine(73, 2), FanLine(81, 2))  # 混一色 6, 幺九刻 x2, 花牌 x2
    assert fan_total(fans) == 10 and fan_total(fans, flowers=False) == 8
    text = _plain(fan_table(fans, lang="zh"))
    assert "混一色" in text and "花牌" in text
    assert "Half Flush" not in text  # one language at a time
    assert "合计" in text and "10" in text
    assert "达到" in text
    # flowers do not count towards the 8 fan
    short = _plain(fan_table((FanLine(49, 1), FanLine(81, 2)), style=ASCII, lang="en"))
    assert "NOT met" in short


def test_reference_table_lists_every_fan() -> None:
    text = _plain(reference_table(), width=120)
    english = _plain(reference_table(style=ASCII, lang="en"), width=120)
    for fan in FANS:
        assert fan.name_zh in text and fan.name_en in english


def test_countdown_bar_width_and_seconds() -> None:
    bar = bar_text("turn: Bob", 7500, 15000, 60, "en")
    assert bar.cell_len == 60 - 1
    assert bar.plain.endswith(" 7.5 s")
    filled = [s for s in bar.spans if "green" in str(s.style) or "yellow" in str(s.style)]
    assert filled


def test_ascii_fan_tables_have_no_chinese() -> None:
    fans = (FanLine(49, 1), FanLine(73, 2))
    for table in (fan_table(fans, style=ASCII, lang="en"), reference_table(style=ASCII, lang="en")):
        text = _plain(table, width=120)
        assert text.isascii(), text
        assert "Half Flush" in text or "Flower Tiles" in text


def test_counter_text_one_line_per_suit() -> None:
    counts = [4] * 34
    counts[T.M1], counts[T.P5], counts[T.C] = 0, 1, 2
    text = counter_text(counts).plain.split("\n")
    assert text == [
        "  1 2 3 4 5 6 7 8 9",
        "万 0 4 4 4 4 4 4 4 4",
        "饼 4 4 4 4 1 4 4 4 4",
        "条 4 4 4 4 4 4 4 4 4",
        "东4 南4 西4 北4",
        "中2 发4 白4",
    ]
    ascii_lines = counter_text(counts, ASCII).plain.split("\n")
    assert ascii_lines[1] == "m  0 4 4 4 4 4 4 4 4" and ascii_lines[5] == "Red2 Grn4 Wht4"


def test_narrow_meld_is_a_short_label() -> None:
    chow = MeldModel("chow", T.S3, claimed_from=1, claimed_tile=T.S4)
    assert meld_text(chow, compact=True).plain == "三四五条上"
    assert meld_text(chow, ASCII, compact=True).plain == "3s 4s 5s<"
    assert meld_text(MeldModel("kong", None, concealed=True), compact=True).plain == "〓" * 4


def test_seat_header_shows_the_level() -> None:
    seat = SeatModel(seat=0, name="Ann", level=7, concealed_count=13)
    assert "Ann Lv7" in seat_header(seat, lang="en").plain
