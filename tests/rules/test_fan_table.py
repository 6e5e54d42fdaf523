"""One test per fan (ids 1-82), the exclusions, the combination principles and bad input.

Every hand is written in the compact notation as the 13 tiles *before* the win (the
winning tile is passed apart, as in the fixture records). Expected fans were worked out
from the rule texts (the exclusion lists of docs/rules.md §1.4 and §3.1, §3.2 for 明暗杠
and the kong fans);
totals are asserted only where every fan of the hand is certain.
"""

from __future__ import annotations

import pytest

from gbmj.rules.errors import HandError
from gbmj.rules.hand import Hand
from gbmj.rules.scoring import Score, WinContext, score_hand
from protocol.fans import FAN_BY_ID, FAN_BY_NAME_ZH, FANS
from protocol.tiles import Tile


def win(
    text: str,
    tile: str,
    *,
    self_drawn: bool = False,
    fourth: bool = False,
    kong: bool = False,
    last: bool = False,
    seat: str = "E",
    round: str = "E",
    flowers: int = 0,
) -> Score:
    """Score the 13-tile hand ``text`` winning on ``tile``."""
    context = WinContext(
        win_tile=Tile.parse(tile),
        self_drawn=self_drawn,
        fourth_tile=fourth,
        kong_related=kong,
        last_tile=last,
        seat_wind=Tile.parse(seat),
        prevailing_wind=Tile.parse(round),
        flowers=flowers,
    )
    return score_hand(Hand.parse(text), context)


def fans_of(score: Score) -> dict[str, int]:
    return {fc.fan.name_zh: fc.count for fc in score.fans}


def check(
    score: Score,
    present: dict[str, int] | str,
    absent: str = "",
    total: int | None = None,
) -> None:
    """``present``: fans with their counts (a name alone means once); ``absent``: names
    separated by spaces that must not be listed; ``total`` only when every fan is sure."""
    if isinstance(present, str):
        present = {present: 1}
    names = [*present, *absent.split()]
    unknown = [n for n in names if n not in FAN_BY_NAME_ZH]
    assert not unknown, f"not fans: {unknown}"
    got = fans_of(score)
    for name, count in present.items():
        assert got.get(name) == count, f"{name}×{count} expected in {got}"
    listed = [n for n in absent.split() if n in got]
    assert not listed, f"{listed} must not be listed with {got}"
    if total is not None:
        assert score.total == total, got


def test_every_fan_has_a_test_here() -> None:
    """The 82 fans of the table, each with its own test named after it."""
    assert [f.id for f in FANS] == list(range(1, 83))
    names = {n for n in globals() if n.startswith("test_fan_")}
    for fan in FANS:
        slug = fan.name_en.lower().replace("-", "_").replace(" ", "_").replace(",", "")
        assert f"test_fan_{fan.id:02d}_{slug}" in names, fan


# -- 88 ---------------------------------------------------------------------------------
def test_fan_01_big_four_winds() -> None:
    # Seat S and round W: without the exclusion SSS and WWW would be seat and round pungs.
    s = win("[EEE<1] [SSS<2] WWW NNN 5m", "5m", seat="S", round="W")
    check(s, "大四喜", "三风刻 碰碰和 圈风刻 门风刻 幺九刻 小四喜")
    # 88 + 混一色 6 + 双暗刻 (WWW NNN) 2 + 单钓将 1
    check(s, {"混一色": 1, "双暗刻": 1, "单钓将": 1}, total=97)


def test_fan_02_big_three_dragons() -> None:
    s = win("[CCC<1] FFF PPP 23m 55p", "1m")
    check(s, "大三元", "双箭刻 箭刻 幺九刻 小三元")


def test_fan_03_all_green() -> None:
    check(win("234s 234s 666s 888s F", "F"), "绿一色", "混一色")
    # Without 发 it is also a full flush.
    check(win("234s 234s 666s 33s 88s", "8s"), {"绿一色": 1, "清一色": 1}, "混一色")


def test_fan_04_nine_gates() -> None:
    s = win("1112345678999m", "5m")
    check(s, "九莲宝灯", "清一色 不求人 门前清 无字")
    # 111m and 999m are pungs; one 幺九刻 is part of the nine gates (幺九刻×1).
    check(s, {"幺九刻": 1})
    check(win("1112345678999m", "5m", self_drawn=True), "九莲宝灯", "不求人 门前清 清一色")


def test_fan_05_four_kongs() -> None:
    s = win("[1111m] [EEEE<2] [5555p<1] [9999s<3] C", "C", seat="S", round="W")
    check(s, "四杠", "碰碰和 单钓将 三杠 双明杠 双暗杠 明暗杠 明杠 暗杠")


def test_fan_06_seven_shifted_pairs() -> None:
    s = win("1122334455667p", "7p")
    check(s, "连七对", "清一色 七对 不求人 门前清 无字 单钓将")


def test_fan_07_thirteen_orphans() -> None:
    s = win("19m 19p 19s ESWNCF C", "P")
    check(s, "十三幺", "五门齐 不求人 门前清 单钓将 全带幺 混幺九", total=88)
    check(win("19m 19p 19s ESWNCFP", "9s", self_drawn=True), {"十三幺": 1, "自摸": 1}, total=89)


# -- 64 ---------------------------------------------------------------------------------
def test_fan_08_all_terminals() -> None:
    s = win("111m 999m 111p 999p 9s", "9s")
    check(s, "清幺九", "碰碰和 全带幺 双同刻 幺九刻 无字 混幺九")
    check(s, "四暗刻")


def test_fan_09_little_four_winds() -> None:
    s = win("[EEE<1] [SSS<2] WWW N 123m", "N", seat="N", round="N")
    check(s, "小四喜", "三风刻 幺九刻 大四喜")


def test_fan_10_little_three_dragons() -> None:
    s = win("[CCC<1] FFF P 123m 789m", "P")
    check(s, "小三元", "双箭刻 箭刻 幺九刻 大三元")


def test_fan_11_all_honors() -> None:
    s = win("[EEE<1] SSS WWW CCC P", "P", seat="N", round="N")
    check(s, {"字一色": 1, "三风刻": 1, "箭刻": 1}, "碰碰和 全带幺 幺九刻 混幺九")


def test_fan_12_four_concealed_pungs() -> None:
    s = win("111m 555m 999p 444s 7s", "7s")
    check(s, "四暗刻", "碰碰和 不求人 门前清 三暗刻 双暗刻")


def test_fan_13_pure_terminal_chows() -> None:
    s = win("11m 22m 33m 5m 77m 88m 99m", "5m")
    check(s, "一色双龙会", "七对 清一色 平和 一般高 老少副 无字")


# -- 48 ---------------------------------------------------------------------------------
def test_fan_14_quadruple_chow() -> None:
    s = win("123p 123p 123p 12p 99s", "3p")
    check(s, "一色四同顺", "一色三同顺 一色三节高 四归一 一般高")


def test_fan_15_four_pure_shifted_pungs() -> None:
    s = win("[222p<1] 333p 444p 555p E", "E")
    check(s, "一色四节高", "一色三同顺 一色三节高 碰碰和")


# -- 32 ---------------------------------------------------------------------------------
def test_fan_16_four_pure_shifted_chows() -> None:
    check(win("123m 345m 567m 789m 5p", "5p"), "一色四步高", "一色三步高 连六 老少副")
    check(win("123m 234m 345m 456m 9p", "9p"), "一色四步高", "一色三步高 连六")


def test_fan_17_three_kongs() -> None:
    s = win("[1111m] [EEEE<2] [5555p<1] 234s C", "C", seat="S", round="W")
    check(s, "三杠", "双暗杠 双明杠 明暗杠 明杠 暗杠 四杠")


def test_fan_18_all_terminals_and_honors() -> None:
    s = win("[111m<1] 999p EEE 11s CC", "C", seat="N", round="N")
    check(s, "混幺九", "碰碰和 全带幺 幺九刻 清幺九")


# -- 24 ---------------------------------------------------------------------------------
def test_fan_19_seven_pairs() -> None:
    s = win("11m 55m 33p 88p 22s 66s E", "E")
    check(s, "七对", "不求人 门前清 单钓将", total=24)
    # Four alike are two pairs, and a tile hog (四张相同且未开杠).
    check(win("1111m 33p 44p 55s 66s 7s", "7s"), {"七对": 1, "四归一": 1})


def test_fan_20_greater_honors_and_knitted_tiles() -> None:
    s = win("147m 25p 36s ESWNCF", "P")
    check(s, "七星不靠", "全不靠 五门齐 不求人 门前清 单钓将", total=24)
    check(win("147m 25p 36s ESWNCF", "P", self_drawn=True), {"七星不靠": 1, "自摸": 1}, total=25)


def test_fan_21_all_even_pungs() -> None:
    s = win("[222m<1] 444p 666s 88m 88s", "8s")
    check(s, "全双刻", "碰碰和 断幺 无字")


def test_fan_22_full_flush() -> None:
    check(win("123m 345m 666m 789m 9m", "9m"), "清一色", "无字 缺一门")


def test_fan_23_pure_triple_chow() -> None:
    # The melded chow keeps 222333444p from being read as three pungs.
    check(win("[234p<1] 234p 234p 567s 9m", "9m"), "一色三同顺", "一色三节高 一般高")


def test_fan_24_pure_shifted_pungs() -> None:
    # 5s sits in the pung meld, so 666s 777s cannot be read as chows.
    s = win("[555s<1] 666s 777s 12m 99p", "3m")
    check(s, "一色三节高", "一色三同顺")


def test_fan_25_upper_tiles() -> None:
    check(win("789m 789p 999s 88s 77s", "7s"), "全大", "大于五 无字")


def test_fan_26_middle_tiles() -> None:
    check(win("456m 456p 555s 44s 66s", "4s"), "全中", "断幺 无字")


def test_fan_27_lower_tiles() -> None:
    check(win("123m 123p 111s 22s 33s", "3s"), "全小", "小于五 无字")


# -- 16 ---------------------------------------------------------------------------------
def test_fan_28_pure_straight() -> None:
    check(win("123m 456m 789m 55p 79s", "8s"), "清龙", "连六 老少副")


def test_fan_29_three_suited_terminal_chows() -> None:
    s = win("123m 789m 123p 789p 5s", "5s")
    check(s, "三色双龙会", "平和 老少副 喜相逢 无字")


def test_fan_30_pure_shifted_chows() -> None:
    check(win("123p 234p 345p 789s E", "E"), "一色三步高")
    check(win("123p 345p 567p 789s E", "E"), "一色三步高")


def test_fan_31_all_fives() -> None:
    check(win("345m 555p 456s 567s 5m", "5m"), "全带五", "断幺 无字")


def test_fan_32_triple_pung() -> None:
    check(win("[777m<1] 777p 777s 234m 9p", "9p"), "三同刻", "双同刻")


def test_fan_33_three_concealed_pungs() -> None:
    check(win("222m 555p 888s 34m EE", "5m"), "三暗刻", "双暗刻")


# -- 12 ---------------------------------------------------------------------------------
def test_fan_34_lesser_honors_and_knitted_tiles() -> None:
    s = win("147m 258p 36s ESWNC", "F")
    check(s, "全不靠", "五门齐 不求人 门前清 单钓将 七星不靠 组合龙", total=12)


def test_fan_35_knitted_straight() -> None:
    check(win("147m 258p 369s 123s 5p", "5p"), "组合龙")
    # Nine knitted tiles inside honors-and-knitted: both fans (12 + 12).
    check(win("147m 258p 369s ESWN", "C"), {"全不靠": 1, "组合龙": 1}, "五门齐", total=24)


def test_fan_36_upper_four() -> None:
    check(win("678m 789p 666s 99s 77s", "7s"), "大于五", "无字 全大")


def test_fan_37_lower_four() -> None:
    check(win("123m 234p 444s 11s 33s", "3s"), "小于五", "无字 全小")


def test_fan_38_big_three_winds() -> None:
    s = win("[EEE<1] SSS WWW 123m 5p", "5p", seat="N", round="N")
    check(s, "三风刻", "幺九刻 小四喜")


# -- 8 ----------------------------------------------------------------------------------
def test_fan_39_mixed_straight() -> None:
    check(win("123m 456p 789s 234s 9m", "9m"), "花龙")


def test_fan_40_reversible_tiles() -> None:
    check(win("234p 888p 456s 99s PP", "P"), "推不倒", "缺一门")


def test_fan_41_mixed_triple_chow() -> None:
    check(win("234m 234p 234s 567m 9s", "9s"), "三色三同顺", "喜相逢")


def test_fan_42_mixed_shifted_pungs() -> None:
    check(win("[333m<1] 444p 555s 789m 1s", "1s"), "三色三节高")


# A hand with no fan of its own: three suits, a melded chow, an honor pair, an open wait.
CHICKEN = "234m 45m 789s WW [567p<1]"


def test_fan_43_chicken_hand() -> None:
    check(win(CHICKEN, "3m"), "无番和", total=8)
    s = win(CHICKEN, "3m", flowers=2)
    check(s, {"无番和": 1, "花牌": 2}, total=10)
    assert s.total_without_flowers == 8
    # Any other fan, however small, and it is no longer a chicken hand.
    check(win(CHICKEN, "3m", self_drawn=True), "自摸", "无番和", total=1)


def test_fan_44_last_tile_draw() -> None:
    check(win(CHICKEN, "3m", self_drawn=True, last=True), "妙手回春", "自摸 无番和", total=8)


def test_fan_45_last_tile_claim() -> None:
    check(win(CHICKEN, "3m", last=True), "海底捞月", "无番和", total=8)


def test_fan_46_out_with_replacement_tile() -> None:
    s = win("[5555p<1] 234m 45m 789s WW", "3m", self_drawn=True, kong=True)
    check(s, "杠上开花", "自摸")


def test_fan_47_robbing_the_kong() -> None:
    # The robbed tile is never one the winner holds: win on 6m.
    check(win(CHICKEN, "6m", kong=True), "抢杠和", "无番和", total=8)
    # It is the last copy by nature: no 和绝张 on top.
    check(win(CHICKEN, "6m", kong=True, fourth=True), "抢杠和", "和绝张", total=8)


# -- 6 ----------------------------------------------------------------------------------
def test_fan_48_all_pungs() -> None:
    check(win("[111p<2] 555m 777s EE 99s", "E", seat="N", round="N"), "碰碰和")


def test_fan_49_half_flush() -> None:
    check(win("123m 567m 999m EEE S", "S", seat="N", round="N"), "混一色", "缺一门 清一色")


def test_fan_50_mixed_shifted_chows() -> None:
    check(win("234m 345p 456s 789m 1p", "1p"), "三色三步高")


def test_fan_51_all_types() -> None:
    check(win("123m 456p 789s EEE C", "C", seat="N", round="N"), "五门齐")


def test_fan_52_melded_hand() -> None:
    s = win("[123m<1] [456p<1] [789s<1] [EEE<2] C", "C", seat="N", round="N")
    check(s, "全求人", "单钓将 门前清")
    # Melded kongs count among the four claims (明杠); a concealed kong does not.
    s = win("[123m<1] [456p<1] [789s<1] [EEEE<2] C", "C", seat="N", round="N")
    check(s, {"全求人": 1, "明杠": 1}, "单钓将")
    s = win("[123m<1] [456p<1] [789s<1] [EEEE] C", "C", seat="N", round="N")
    check(s, {"暗杠": 1, "单钓将": 1}, "全求人")
    # Only on another player's discard: self-drawn it is 自摸 (and the single wait).
    s = win("[123m<1] [456p<1] [789s<1] [EEE<2] C", "C", self_drawn=True, seat="N", round="N")
    check(s, {"自摸": 1, "单钓将": 1}, "全求人")


def test_fan_53_two_concealed_kongs() -> None:
    check(win("[5555m] [7777p] 234s 678s E", "E"), "双暗杠", "暗杠 双暗刻")


def test_fan_54_two_dragon_pungs() -> None:
    check(win("CCC FFF 123m 456p 9s", "9s"), "双箭刻", "箭刻 幺九刻")


# -- 4 ----------------------------------------------------------------------------------
def test_fan_55_outside_hand() -> None:
    check(win("123m 789p 123s 999s E", "E"), "全带幺")


def test_fan_56_fully_concealed_hand() -> None:
    check(win("234m 456p 678s 55p 34s", "2s", self_drawn=True), "不求人", "自摸 门前清")
    # A concealed kong keeps the hand concealed.
    check(win("[5555m] 234s 678s 234p E", "E", self_drawn=True), "不求人", "自摸")


def test_fan_57_two_melded_kongs() -> None:
    check(win("[5555m<1] [7777p<2] 234s 678s E", "E"), "双明杠", "明杠")


def test_fan_58_last_tile() -> None:
    # The last copy: the hand holds no other 6m.
    check(win(CHICKEN, "6m", fourth=True), "和绝张", "无番和", total=4)
    # Three copies shown in the winner's own melded pung are on the table too.
    s = win("[333m<2] 45m 789s WW [567p<1]", "3m")
    check(s, "和绝张")


# -- 2 ----------------------------------------------------------------------------------
def test_fan_59_dragon_pung() -> None:
    check(win("CCC 123m 456p 789s 5s", "5s"), "箭刻", "幺九刻")


def test_fan_60_prevalent_wind() -> None:
    check(win("SSS 123m 456p 789s 5s", "5s", seat="E", round="S"), "圈风刻", "门风刻 幺九刻")


def test_fan_61_seat_wind() -> None:
    check(win("SSS 123m 456p 789s 5s", "5s", seat="S", round="E"), "门风刻", "圈风刻 幺九刻")
    s = win("SSS 123m 456p 789s 5s", "5s", seat="S", round="S")
    check(s, {"门风刻": 1, "圈风刻": 1}, "幺九刻")


def test_fan_62_concealed_hand() -> None:
    check(win("234m 456p 678s 55p 34s", "2s"), "门前清", "不求人")
    check(win("[5555m] 234s 678s 234p E", "E"), "门前清")
    # A melded kong is a claim: no longer concealed.
    check(win("[5555m<1] 234s 678s 234p E", "E"), "明杠", "门前清 不求人")
    check(win("[5555m<1] 234s 678s 234p E", "E", self_drawn=True), "自摸", "门前清 不求人")


def test_fan_63_all_chows() -> None:
    # 门前清 2 + 平和 2 + 断幺 2; 23s waits on 1s or 4s.
    s = win("345m 567p 678s 55p 23s", "4s")
    check(s, {"平和": 1, "门前清": 1, "断幺": 1}, "无字", total=6)


def test_fan_64_tile_hog() -> None:
    check(win("123m 345m 567p 789s 3m", "3m"), "四归一")
    # A kong's four tiles are no tile hog.
    check(win("[5555m] 234s 678s 234p E", "E"), "暗杠", "四归一")


def test_fan_65_double_pung() -> None:
    check(win("[555m<1] 555p 123s 789s 9p", "9p"), "双同刻")


def test_fan_66_two_concealed_pungs() -> None:
    check(win("222m 555p 123s 789s 9p", "9p"), "双暗刻")


def test_fan_67_concealed_kong() -> None:
    check(win("[5555m] 234s 678s 234p E", "E"), "暗杠", "明杠 明暗杠 双暗杠")


def test_fan_68_all_simples() -> None:
    check(win("234m 456p 678s 55p 34s", "2s"), "断幺", "无字")


# -- 1 ----------------------------------------------------------------------------------
def test_fan_69_pure_double_chow() -> None:
    check(win("234m 234m 567p 789s 5s", "5s"), "一般高")


def test_fan_70_mixed_double_chow() -> None:
    check(win("234m 234p 567p 789s 5s", "5s"), "喜相逢")


def test_fan_71_short_straight() -> None:
    check(win("123m 456m 567p 789s 5s", "5s"), "连六")


def test_fan_72_two_terminal_chows() -> None:
    check(win("123m 789m 456p 234s 5s", "5s"), "老少副")


def test_fan_73_pung_of_terminals_or_honors() -> None:
    check(win("999m 123p 456p 789s 5s", "5s"), {"幺九刻": 1})
    check(win("999m 111p 456p 789s 5s", "5s"), {"幺九刻": 2})


def test_fan_74_melded_kong() -> None:
    check(win("[5555m<1] 234s 678s 234p E", "E"), "明杠", "暗杠 双明杠")


def test_fan_75_one_voided_suit() -> None:
    check(win("234m 456m 678s 55m 34s", "2s"), "缺一门")


def test_fan_76_no_honors() -> None:
    # A pung, so no 平和 (which would include 无字).
    check(win("111m 456p 678s 99p 34s", "2s"), "无字", "断幺 平和")


def test_fan_77_edge_wait() -> None:
    check(win("12m 456p 678s 99p 789s", "3m"), "边张", "嵌张 单钓将")
    check(win("89m 456p 678s 99p 123s", "7m"), "边张", "嵌张 单钓将")


def test_fan_78_closed_wait() -> None:
    check(win("13m 456p 678s 99p 789s", "2m"), "嵌张", "边张 单钓将")


def test_fan_79_single_wait() -> None:
    check(win("123m 456p 789s 234s E", "E"), "单钓将", "边张 嵌张")


def test_fan_80_self_drawn() -> None:
    check(win(CHICKEN, "3m", self_drawn=True), "自摸", total=1)


def test_fan_81_flower_tiles() -> None:
    s = win(CHICKEN, "3m", flowers=3)
    check(s, {"花牌": 3, "无番和": 1}, total=11)
    assert s.total_without_flowers == 8
    assert "花牌" not in fans_of(win(CHICKEN, "3m"))


def test_fan_82_concealed_kong_and_melded_kong() -> None:
    s = win("[5555m] [7777p<1] 234s 678s E", "E")
    check(s, "明暗杠", "明杠 暗杠 双明杠 双暗杠")


# -- whole scores, every fan worked out by hand --------------------------------------------------
FULL_SCORES = [
    # hand, winning tile, context, every fan listed
    ("[CCC<1] FFF PPP 23m 55p", "1m", {}, {"大三元": 1, "双暗刻": 1, "缺一门": 1}),
    # 666s concealed, 888s completed by the discard: one concealed pung only.
    ("234s 234s 666s 33s 88s", "8s", {},
     {"绿一色": 1, "清一色": 1, "门前清": 1, "四归一": 1, "断幺": 1, "一般高": 1}),
    ("1112345678999m", "5m", {}, {"九莲宝灯": 1, "双暗刻": 1, "幺九刻": 1}),
    ("[1111m] [EEEE<2] [5555p<1] [9999s<3] C", "C", {"seat": "S", "round": "W"},
     {"四杠": 1, "五门齐": 1, "幺九刻": 3}),
    ("111m 999m 111p 999p 9s", "9s", {}, {"清幺九": 1, "四暗刻": 1, "单钓将": 1}),
    ("[EEE<1] [SSS<2] WWW N 123m", "N", {"seat": "N", "round": "N"},
     {"小四喜": 1, "混一色": 1, "全带幺": 1, "单钓将": 1}),
    ("[EEE<1] SSS WWW CCC P", "P", {"seat": "N", "round": "N"},
     {"字一色": 1, "三暗刻": 1, "三风刻": 1, "箭刻": 1, "单钓将": 1}),
    ("111m 555m 999p 444s 7s", "7s", {}, {"四暗刻": 1, "幺九刻": 2, "无字": 1, "单钓将": 1}),
    ("[222p<1] 333p 444p 555p E", "E", {},
     {"一色四节高": 1, "三暗刻": 1, "混一色": 1, "单钓将": 1}),
    ("123m 345m 567m 789m 5p", "5p", {},
     {"一色四步高": 1, "门前清": 1, "平和": 1, "缺一门": 1, "单钓将": 1}),
    # The pair and the dragon pung wait together (11s or CC): no single wait.
    ("[111m<1] 999p EEE 11s CC", "C", {"seat": "N", "round": "N"},
     {"混幺九": 1, "五门齐": 1, "箭刻": 1, "双暗刻": 1}),
    ("[222m<1] 444p 666s 88m 88s", "8s", {}, {"全双刻": 1, "双暗刻": 1}),
    # 123 345 66 678 999 (连六 + 幺九刻) beats 123 345 666 789 99 (老少副).
    ("123m 345m 666m 789m 9m", "9m", {}, {"清一色": 1, "门前清": 1, "连六": 1, "幺九刻": 1}),
    ("[555s<1] 666s 777s 12m 99p", "3m", {},
     {"一色三节高": 1, "双暗刻": 1, "无字": 1, "边张": 1}),
    ("789m 789p 999s 88s 77s", "7s", {}, {"全大": 1, "门前清": 1, "喜相逢": 1, "幺九刻": 1}),
    ("456m 456p 555s 44s 66s", "4s", {}, {"全中": 1, "门前清": 1, "喜相逢": 1}),
    ("123m 456m 789m 55p 79s", "8s", {},
     {"清龙": 1, "门前清": 1, "平和": 1, "喜相逢": 1, "嵌张": 1}),
    ("123m 789m 123p 789p 5s", "5s", {}, {"三色双龙会": 1, "门前清": 1, "单钓将": 1}),
    # 34m + 55m also waits on 2m: no single wait.
    ("345m 555p 456s 567s 5m", "5m", {}, {"全带五": 1, "门前清": 1}),
    # 77p + 79p also waits on 8p: no single wait.
    ("[777m<1] 777p 777s 234m 9p", "9p", {}, {"三同刻": 1, "双暗刻": 1, "无字": 1}),
    ("[EEE<1] SSS WWW 123m 5p", "5p", {"seat": "N", "round": "N"},
     {"三风刻": 1, "双暗刻": 1, "缺一门": 1, "单钓将": 1}),
    ("234p 888p 456s 99s PP", "P", {}, {"推不倒": 1, "箭刻": 1, "门前清": 1}),
    ("234m 234p 234s 567m 9s", "9s", {},
     {"三色三同顺": 1, "门前清": 1, "平和": 1, "连六": 1, "单钓将": 1}),
    ("[5555p<1] 234m 45m 789s WW", "3m", {"self_drawn": True, "kong": True},
     {"杠上开花": 1, "明杠": 1}),
    ("[111p<2] 555m 777s EE 99s", "E", {"seat": "N", "round": "N"},
     {"碰碰和": 1, "双暗刻": 1, "幺九刻": 2}),
    ("[123m<1] [456p<1] [789s<1] [EEE<2] C", "C", {"seat": "N", "round": "N"},
     {"花龙": 1, "五门齐": 1, "全求人": 1, "幺九刻": 1}),
    ("[5555m] [7777p] 234s 678s E", "E", {}, {"双暗杠": 1, "门前清": 1, "单钓将": 1}),
    ("[5555m] 234s 678s 234p E", "E", {"self_drawn": True},
     {"不求人": 1, "暗杠": 1, "喜相逢": 1, "单钓将": 1}),
    ("[5555m<1] [7777p<2] 234s 678s E", "E", {}, {"双明杠": 1, "单钓将": 1}),
    ("[5555m] [7777p<1] 234s 678s E", "E", {}, {"明暗杠": 1, "单钓将": 1}),
    ("SSS 123m 456p 789s 5s", "5s", {"seat": "S", "round": "S"},
     {"花龙": 1, "圈风刻": 1, "门风刻": 1, "门前清": 1, "单钓将": 1}),
    # 123 345 33 also reads 33 + 123 + 45: waits on 3m and 6m.
    ("123m 345m 567p 789s 3m", "3m", {}, {"门前清": 1, "平和": 1, "四归一": 1}),
    ("999m 111p 456p 789s 5s", "5s", {},
     {"门前清": 1, "双暗刻": 1, "幺九刻": 2, "无字": 1, "单钓将": 1}),
    ("234m 456m 678s 55m 34s", "2s", {},
     {"门前清": 1, "平和": 1, "断幺": 1, "喜相逢": 1, "缺一门": 1}),
    ("111m 555p 678s 99s EE", "E", {},
     {"圈风刻": 1, "门风刻": 1, "门前清": 1, "双暗刻": 1, "幺九刻": 1}),
    ("111m 555p 678s 99s EE", "E", {"self_drawn": True},
     {"三暗刻": 1, "不求人": 1, "圈风刻": 1, "门风刻": 1, "幺九刻": 1}),
    ("111222333m 456p 9s", "9s", {},
     {"一色三节高": 1, "三暗刻": 1, "门前清": 1, "幺九刻": 1, "无字": 1, "单钓将": 1}),
    ("[234m<1] 234m 678p 678p 5s", "5s", {}, {"平和": 1, "断幺": 1, "一般高": 2, "单钓将": 1}),
]  # fmt: skip


@pytest.mark.parametrize(("hand", "tile", "context", "expected"), FULL_SCORES)
def test_whole_score(hand: str, tile: str, context: dict, expected: dict[str, int]) -> None:
    s = win(hand, tile, **context)
    assert all(name in FAN_BY_NAME_ZH for name in expected)
    assert fans_of(s) == expected
    assert s.total == sum(FAN_BY_NAME_ZH[n].points * c for n, c in expected.items())


# -- the waits of the rule book's examples (docs/rules.md §3.7) -------------------------------
def test_edge_wait_only_when_it_is_the_only_wait() -> None:
    # 12 3: edge. 12345 waiting 3: also waits on 6, so no edge.
    check(win("12m 456p 678s 99p 789s", "3m"), "边张")
    check(win("12345m 678s 789p 99p", "3m"), {}, "边张 嵌张 单钓将")


def test_closed_wait_only_when_it_is_the_only_wait() -> None:
    # 4556 waiting 5: closed (5 is the only tile). 45567 waiting 6: also waits on 3.
    check(win("4556m 123p 789p 789s", "5m"), "嵌张", "边张")
    check(win("45567m 123p 789p 99s", "6m"), {}, "边张 嵌张 单钓将")


def test_single_wait_only_when_it_is_the_only_wait() -> None:
    # 1234m can be 123 + 4 or 1 + 234: it waits on 1m and 4m, no single wait.
    check(win("1234m 456p 789p 789s", "4m"), {}, "单钓将 边张 嵌张")


# -- concealed pungs and the win tile ----------------------------------------------------------
def test_a_pung_completed_by_a_discard_is_not_concealed() -> None:
    check(win("111m 555p 678s 99s EE", "E"), "双暗刻", "三暗刻")
    check(win("111m 555p 678s 99s EE", "E", self_drawn=True), "三暗刻", "双暗刻")


def test_the_discard_may_complete_the_chow_instead_of_the_pung() -> None:
    # 45666s + 6s on a discard: 456s + 666s, the 6s taken into the chow keeps the pung
    # concealed.
    check(win("111m 555p 45666s EE", "6s"), "三暗刻", "双暗刻")


# -- the five combination principles ------------------------------------------------------------
def test_no_repeat_不重复() -> None:
    """A fan that implies another does not count the implied one again."""
    check(win("[EEE<1] [SSS<2] WWW NNN 5m", "5m", seat="E", round="E"), "大四喜",
          "碰碰和 三风刻 圈风刻 门风刻 幺九刻")  # fmt: skip
    check(win("[CCC<1] FFF P 123m 789m", "P"), "小三元", "双箭刻 箭刻")
    check(win("123m 456p 678s 99p 34s", "2s", self_drawn=True), "不求人", "自摸 门前清")


def test_no_splitting_不拆移() -> None:
    """Sets once fixed are not split and regrouped: 111222333m is three pungs or three
    chows, never both."""
    s = win("111222333m 456p 9s", "9s")
    got = fans_of(s)
    assert not ("一色三节高" in got and "一色三同顺" in got), got


def test_no_identical_reuse_不得相同() -> None:
    """Three identical chows are one 一色三同顺, not three 一般高 on top."""
    check(win("[234p<1] 234p 234p 567s 9m", "9m"), "一色三同顺", "一般高")
    check(win("123p 123p 123p 12p 99s", "3p"), "一色四同顺", "一色三同顺 一般高")


def test_take_the_highest_就高不就低() -> None:
    """111222333m + 456p + 99s: pungs (一色三节高 24 + 三暗刻 16) beat chows
    (一色三同顺 24 + 平和 2)."""
    s = win("111222333m 456p 9s", "9s")
    check(s, {"一色三节高": 1, "三暗刻": 1}, "一色三同顺 平和")


def test_combine_once_套算一次() -> None:
    """A set combines with another set only once for the pair fans: 123m 123m 123p is
    one 一般高 and one 喜相逢, not two 喜相逢."""
    check(win("123m 123m 123p 789s 5s", "5s"), {"一般高": 1, "喜相逢": 1})
    # Four chows in two identical pairs: 一般高 twice.
    check(win("[234m<1] 234m 678p 678p 5s", "5s"), {"一般高": 2}, "喜相逢")


# -- partial exclusions and repeated fans ------------------------------------------------------
def test_only_the_dragon_and_wind_pungs_lose_their_pung_of_terminals() -> None:
    """The pungs making 大三元 / 三风刻 count no 幺九刻, other terminal pungs still do."""
    check(win("[CCC<1] FFF PPP 111m 5p", "5p"), {"大三元": 1, "幺九刻": 1})
    s = win("[EEE<1] SSS WWW 999m 5p", "5p", seat="N", round="N")
    check(s, {"三风刻": 1, "幺九刻": 1})


def test_repeatable_fans_count_each_time() -> None:
    """双同刻 (可重复计算): 222m 222p and 888m 888p are two double pungs."""
    s = win("222m 222p 888m 888p 5s", "5s")
    # 四暗刻 64 + 双同刻 2×2 + 断幺 2 + 单钓将 1
    check(s, {"四暗刻": 1, "双同刻": 2, "断幺": 1, "单钓将": 1}, "碰碰和 门前清", total=71)


def test_nine_gates_needs_the_concealed_gates_before_the_win() -> None:
    # The same 14 tiles, but the hand before the win was not 1112345678999.
    check(win("1123455678999m", "1m"), "清一色", "九莲宝灯")
    # A melded pung is no nine gates either.
    check(win("[111m<2] 2345678999m", "5m"), "清一色", "九莲宝灯")


# -- the score itself ---------------------------------------------------------------------------
def test_score_lists_names_and_points_of_the_table() -> None:
    s = win("234m 456p 678s 55p 34s", "2s", flowers=1)
    for fc in s.fans:
        assert FAN_BY_ID[fc.fan.id] == fc.fan
        assert fc.count >= 1
        assert fc.subtotal == fc.fan.points * fc.count
    assert s.total == sum(fc.subtotal for fc in s.fans)
    assert s.total - s.total_without_flowers == 1
    assert s.meets_8 is False
    assert win(CHICKEN, "3m").meets_8 is True


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "tile", "code"),
    [
        ("123m 456p 789s EE 19s", "5p", "not_winning"),
        ("123m 456p 789s EE 19s", "E", "not_winning"),
        ("11m 22m 33p 44p 55s 66s 7s", "8s", "not_winning"),
        ("123m 456p 789s EE", "E", "wrong_tile_count"),
        ("123m 456p 789s EEE 11s 9p", "9p", "wrong_tile_count"),
        ("123m 456p 789s EEE 11s [123p<1]", "1s", "wrong_tile_count"),
        ("1111m 456p 789s EE 9s", "1m", "too_many_copies"),
        ("111m 456p 789s EE 9s [1111m<2]", "9s", "too_many_copies"),
    ],
)
def test_bad_hands_raise(text: str, tile: str, code: str) -> None:
    with pytest.raises(HandError) as err:
        win(text, tile)
    assert err.value.code == code
    assert str(err.value)


@pytest.mark.parametrize(
    "context",
    [
        {"tile": "f1"},
        {"flowers": 9},
        {"flowers": -1},
        {"seat": "C"},
        {"round": "5m"},
    ],
)
def test_bad_context_raises(context: dict) -> None:
    kwargs = {"tile": "3m", **context}
    tile = kwargs.pop("tile")
    with pytest.raises(HandError) as err:
        win(CHICKEN, tile, **kwargs)
    assert err.value.code == "bad_context"
