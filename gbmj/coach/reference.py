"""The fan reference (docs/rules.md §2.13): for each fan of protocol/fans.json, the fans
it excludes (the rule book's 不计) and an example hand that scores it.

The calculator applies the same exclusions (``gbmj.rules.scoring``; a test checks that
every exclusion it applies is listed here and that no example shows a fan its fan
excludes). Examples are reference hands in the notation of ``gbmj-fan``.
"""

from __future__ import annotations

from typing import NamedTuple

from protocol.tiles import Tile

from ..rules.hand import Hand, parse_tiles
from ..rules.scoring import Score, WinContext, score_hand

# fan id -> the fans it excludes (ids of protocol/fans.json)
EXCLUDES: dict[int, tuple[int, ...]] = {
    1: (38, 48, 60, 61, 73),  # 大四喜: 三风刻 碰碰和 圈风刻 门风刻 幺九刻
    2: (54, 59),  # 大三元: 双箭刻 箭刻
    3: (49, 75),  # 绿一色: 混一色 缺一门
    4: (22, 62, 76),  # 九莲宝灯: 清一色 门前清 无字
    5: (17, 57, 74, 79),  # 四杠: 三杠 双明杠 明杠 单钓将
    6: (19, 22, 62, 76, 79),  # 连七对: 七对 清一色 门前清 无字 单钓将
    7: (51, 62, 79),  # 十三幺: 五门齐 门前清 单钓将
    8: (18, 48, 55, 65, 73, 76),  # 清幺九: 混幺九 碰碰和 全带幺 双同刻 幺九刻 无字
    9: (38, 73),  # 小四喜: 三风刻 幺九刻
    10: (54, 59),  # 小三元: 双箭刻 箭刻
    11: (18, 48, 55, 73, 75),  # 字一色: 混幺九 碰碰和 全带幺 幺九刻 缺一门
    12: (33, 48, 62, 66),  # 四暗刻: 三暗刻 碰碰和 门前清 双暗刻
    13: (19, 22, 63, 69, 72, 76),  # 一色双龙会: 七对 清一色 平和 一般高 老少副 无字
    14: (23, 24, 64, 69),  # 一色四同顺: 一色三同顺 一色三节高 四归一 一般高
    15: (23, 24, 48),  # 一色四节高: 一色三同顺 一色三节高 碰碰和
    16: (30, 71, 72),  # 一色四步高: 一色三步高 连六 老少副
    17: (53, 57, 67, 74),  # 三杠: 双暗杠 双明杠 暗杠 明杠
    18: (48, 55, 73),  # 混幺九: 碰碰和 全带幺 幺九刻
    19: (62, 79),  # 七对: 门前清 单钓将
    20: (34, 51, 62, 79),  # 七星不靠: 全不靠 五门齐 门前清 单钓将
    21: (48, 68, 76),  # 全双刻: 碰碰和 断幺 无字
    22: (75, 76),  # 清一色: 缺一门 无字
    23: (24, 69),  # 一色三同顺: 一色三节高 一般高
    24: (23,),  # 一色三节高: 一色三同顺
    25: (36, 76),  # 全大: 大于五 无字
    26: (68, 76),  # 全中: 断幺 无字
    27: (37, 76),  # 全小: 小于五 无字
    28: (71, 72),  # 清龙: 连六 老少副
    29: (63, 70, 72, 76),  # 三色双龙会: 平和 喜相逢 老少副 无字
    31: (68, 76),  # 全带五: 断幺 无字
    32: (65,),  # 三同刻: 双同刻
    33: (66,),  # 三暗刻: 双暗刻
    34: (51, 62, 79),  # 全不靠: 五门齐 门前清 单钓将
    36: (76,),  # 大于五: 无字
    37: (76,),  # 小于五: 无字
    40: (75,),  # 推不倒: 缺一门
    41: (70,),  # 三色三同顺: 喜相逢
    44: (80,),  # 妙手回春: 自摸
    46: (80,),  # 杠上开花: 自摸
    47: (58,),  # 抢杠和: 和绝张
    52: (79,),  # 全求人: 单钓将
    53: (66, 67),  # 双暗杠: 双暗刻 暗杠
    54: (59,),  # 双箭刻: 箭刻
    56: (62, 80),  # 不求人: 门前清 自摸
    57: (74,),  # 双明杠: 明杠
    63: (76,),  # 平和: 无字
    68: (76,),  # 断幺: 无字
    82: (67, 74),  # 明暗杠: 暗杠 明杠
}


class Example(NamedTuple):
    """A winning hand showing a fan: the hand before the winning tile, the tile, the
    situation (``self_drawn``, ``fourth_tile``, ``kong_related``, ``last_tile``), the
    seat and prevailing winds and the flowers."""

    hand: str
    win: str
    situation: tuple[str, ...]
    seat: str
    round: str
    flowers: int = 0

    def context(self) -> WinContext:
        (win,) = parse_tiles(self.win)
        return WinContext(
            win,
            self_drawn="self_drawn" in self.situation,
            fourth_tile="fourth_tile" in self.situation,
            kong_related="kong_related" in self.situation,
            last_tile="last_tile" in self.situation,
            seat_wind=Tile.parse(self.seat),
            prevailing_wind=Tile.parse(self.round),
            flowers=self.flowers,
        )

    def score(self) -> Score:
        return score_hand(Hand.parse(self.hand), self.context())


EXAMPLES: dict[int, Example] = {
    1: Example("3p [NNN<3] [SSS<1] [EEE<2] [WWWW<3]", "3p", ("self_drawn",), "S", "N"),
    2: Example("79m NNCCCPPP [FFFF<2]", "8m", (), "E", "W"),
    3: Example("6688s [234s<1] [234s<1] [234s<1]", "6s", (), "S", "W"),
    4: Example("1112345678999s", "8s", (), "N", "S"),
    5: Example("5p [6666m<2] [WWWW] [5555s<1] [5555m<2]", "5p", (), "W", "W"),
    6: Example("3344556678899p", "7p", (), "N", "N"),
    7: Example("19m 19p 19s ESNCFFP", "W", (), "W", "E"),
    8: Example("11999m 111999p 11s", "1s", ("self_drawn",), "E", "S"),
    9: Example("12m EEESSSWWWNN", "3m", (), "E", "E"),
    10: Example("234m 678p CCFF [PPP<1]", "C", ("self_drawn",), "E", "E"),
    11: Example("SSWWPPP [FFF<3] [EEE<3]", "W", ("self_drawn",), "W", "W"),
    12: Example("11999m 111999p 11s", "1s", ("self_drawn",), "E", "S"),
    13: Example("1122355778899m", "3m", (), "N", "E"),
    14: Example("2277788899s [789s<1]", "9s", (), "S", "E"),
    15: Example("3366677999m [8888m]", "7m", ("self_drawn", "kong_related"), "E", "S"),
    16: Example("56m 22s [345m<1] [234m<1] [456m<1]", "7m", (), "W", "S"),
    17: Example("1133p [7777m<2] [PPPP<2] [2222m<3]", "3p", (), "W", "S"),
    18: Example("99m 11s SSWNNFFPP", "W", ("self_drawn",), "N", "E"),
    19: Example("335566m 88p 447s PP", "7s", (), "S", "N"),
    20: Example("147m 39p 58s ESWNCP", "F", (), "S", "N"),
    21: Example("8s [888m<1] [222p<1] [444m<1] [444p<2]", "8s", (), "W", "W"),
    22: Example("2348889m [222m<3] [666m<3]", "7m", (), "S", "S"),
    23: Example("6688s [234s<1] [234s<1] [234s<1]", "6s", (), "S", "W"),
    24: Example("55p 77s CCC [666p<3] [444p<1]", "5p", ("self_drawn",), "E", "W"),
    25: Example("88p 77899s [789s<1] [789p<1]", "8s", (), "N", "N"),
    26: Example("55m 666p 45666s [666m<2]", "6s", (), "W", "W"),
    27: Example("1122333m 123p 123s", "3m", ("self_drawn", "last_tile"), "E", "E"),
    28: Example("1145789s [123s<1] [456s<1]", "3s", ("self_drawn",), "N", "E"),
    29: Example("123789m 55p 23789s", "1s", (), "W", "W"),
    30: Example("2256789p [345p<1] [567p<1]", "7p", (), "S", "S"),
    31: Example("456m 34555p 33445s", "5s", (), "S", "N"),
    32: Example("34m 55588s [555p<2] [555m<2]", "2m", ("fourth_tile",), "W", "W"),
    33: Example("33444p WWCCC [123s<1]", "W", ("self_drawn",), "E", "E"),
    34: Example("69m 25p 147s SWNCFP", "3m", (), "S", "W"),
    35: Example("147m 58p 369s WW [678p<1]", "2p", ("self_drawn",), "S", "W"),
    36: Example("666m 77p 77778889s", "7p", (), "W", "S"),
    37: Example("22244m 23s [234s<1] [123p<1]", "1s", (), "N", "E"),
    38: Example("456m 88s SSSWWNNN", "W", (), "W", "W"),
    39: Example("55m 123p SS [456s<1] [789m<1]", "5m", ("self_drawn",), "W", "S"),
    40: Example("2223444555p [222s<1]", "1p", ("self_drawn",), "E", "W"),
    41: Example("33567p 45667s [567m<1]", "5s", ("self_drawn",), "S", "S"),
    42: Example("444m 1155p 666s [567s<1]", "5p", (), "W", "N"),
    43: Example("234m 456p 67s PP [345p<1]", "8s", (), "N", "N"),
    44: Example(
        "6m [234m<1] [678s<1] [456p<1] [567m<1]", "6m", ("self_drawn", "last_tile"), "N", "N"
    ),
    45: Example("11234m 88p 123s [456m<1]", "1m", ("last_tile",), "S", "E"),
    46: Example("23p 444s FF [5555m] [6666m<2]", "4p", ("self_drawn", "kong_related"), "S", "S"),
    47: Example("56m 123666s EE [789p<1]", "4m", ("kong_related",), "W", "S"),
    48: Example("1199p [111m<3] [222m<2] [666m<3]", "9p", (), "W", "N"),
    49: Example("3455s NNNFFFPPP", "5s", ("self_drawn",), "N", "E"),
    50: Example("23m 12399p 345s [123s<1]", "4m", (), "S", "W"),
    51: Example("23p SSCCC [123m<1] [222s<3]", "4p", (), "S", "E"),
    52: Example("3s [PPP<3] [888m<3] [456p<1] [999s<3]", "3s", (), "N", "E"),
    53: Example("567p N [3333p] [2222s] [345m<1]", "N", ("self_drawn",), "N", "S"),
    54: Example("2255p 888s PPP [CCC<3]", "5p", (), "E", "N"),
    55: Example("78p PP [789m<1] [789s<1] [789m<1]", "9p", ("self_drawn",), "N", "W"),
    56: Example("1122335577899s", "8s", ("self_drawn",), "N", "E"),
    57: Example("111m 234p E [7777p<3] [8888s<2]", "E", (), "S", "E"),
    58: Example("1388p 234789s [567m<1]", "2p", ("fourth_tile",), "S", "E"),
    59: Example("23p SSCCC [123m<1] [222s<3]", "4p", (), "S", "E"),
    60: Example("N [EEE<2] [222m<2] [567s<1] [444m<1]", "N", (), "S", "E"),
    61: Example("5p [6666m<2] [WWWW] [5555s<1] [5555m<2]", "5p", (), "W", "W"),
    62: Example("123789m 55p 23789s", "1s", (), "W", "W"),
    63: Example("34456m 22p [345s<1] [234s<1]", "2m", (), "E", "E"),
    64: Example("2348889m [222m<3] [666m<3]", "7m", (), "S", "S"),
    65: Example("8s [888m<1] [222p<1] [444m<1] [444p<2]", "8s", (), "W", "W"),
    66: Example("23p 444s FF [5555m] [6666m<2]", "4p", ("self_drawn", "kong_related"), "S", "S"),
    67: Example("4s [567s<1] [PPPP] [222m<2] [234m<1]", "4s", (), "N", "S"),
    68: Example("66p 34577s [678p<1] [333m<2]", "7s", (), "W", "W"),
    69: Example("678m 89s FF [345m<1] [678m<1]", "7s", (), "N", "W"),
    70: Example("22244m 23s [234s<1] [123p<1]", "1s", (), "N", "E"),
    71: Example("5577p 234s [999m<3] [567s<1]", "7p", ("self_drawn",), "N", "S"),
    72: Example("111123p 44s WW [789p<1]", "4s", (), "E", "N"),
    73: Example("23455m 345p 11s [999m<3]", "1s", (), "W", "N"),
    74: Example("3p [NNN<3] [SSS<1] [EEE<2] [WWWW<3]", "3p", ("self_drawn",), "S", "N"),
    75: Example("55p 1133599s SSPP", "5s", (), "N", "E"),
    76: Example("23455m 345p 11s [999m<3]", "1s", (), "W", "N"),
    77: Example("1122355778899m", "3m", (), "N", "E"),
    78: Example("1388p 234789s [567m<1]", "2p", ("fourth_tile",), "S", "E"),
    79: Example("111m 234p E [7777p<3] [8888s<2]", "E", (), "S", "E"),
    80: Example("55m 123p SS [456s<1] [789m<1]", "5m", ("self_drawn",), "W", "S"),
    81: Example("123m 456p 789s EEE 1s", "1s", (), "S", "E", flowers=2),
    82: Example("23p 444s FF [5555m] [6666m<2]", "4p", ("self_drawn", "kong_related"), "S", "S"),
}
