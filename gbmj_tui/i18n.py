"""Interface text in Chinese and English (``--lang zh|en``).

One table of (zh, en) pairs; ``tr(key, lang)`` picks one. Tile faces are not here: they
follow the tile style (gbmj_tui.tiles), not the interface language.
"""

from __future__ import annotations

LANGS = ("zh", "en")

TEXT: dict[str, tuple[str, str]] = {
    # actions
    "discard": ("打出", "Discard"),
    "win": ("和", "Win"),
    "self_drawn": ("自摸", "Self-drawn win"),
    "pung": ("碰", "Pung"),
    "exposed_kong": ("杠", "Kong"),
    "concealed_kong": ("暗杠", "Concealed kong"),
    "added_kong": ("加杠", "Add kong"),
    "kong": ("杠", "Kong"),
    "chow": ("吃", "Chow"),
    "pass": ("过", "Pass"),
    # table
    "dealer": ("庄", "Dealer"),
    "wall": ("牌墙", "Wall"),
    "dice": ("骰子", "Dice"),
    "flowers": ("花", "Flowers"),
    "bot": ("机器人", "bot"),
    "offline": ("离线", "offline"),
    "auto_play": ("托管", "auto"),
    "auto_win": ("自动和", "auto-win"),
    "auto_pass": ("自动过", "auto-pass"),
    "spectating": ("观战中", "Spectating"),
    "waiting_to_start": ("等待开局: 坐满四人, 全员准备 (r)", "Waiting: four seated, all ready (r)"),
    "to_act": ("等待", "To act"),
    "your_turn": ("轮到你出牌", "Your turn"),
    "claim_on": ("打出", "discarded"),
    "seconds": ("秒", "s"),
    "empty_seat": ("空位", "empty"),
    # timers
    "first_discard": ("首打", "first discard"),
    "turn": ("出牌", "turn"),
    "claim_window": ("鸣牌", "claim"),
    # fan table
    "fan": ("番种", "Fan"),
    "fan_en": ("英文", "English"),
    "points": ("番数", "Points"),
    "count": ("次", "x"),
    "subtotal": ("小计", "Sum"),
    "total": ("合计", "Total"),
    "eight_ok": ("起和8番: 达到", "8-fan minimum: met"),
    "eight_short": ("起和8番: 不足", "8-fan minimum: NOT met"),
    "draw_game": ("荒庄", "Draw (wall exhausted)"),
    "wins": ("和牌", "wins"),
    "self_drawn_by": ("自摸", "self-drawn"),
    "on_discard_of": ("点炮", "on the discard of"),
    "win_tile": ("和张", "Winning tile"),
    "score": ("分数", "Score"),
    "coins": ("金币", "Coins"),
    # items, shop, leaderboard (SPEC §2.6-2.7)
    "timer_extension": ("延时卡", "timer extension"),
    "tile_counter": ("记牌器", "tile counter"),
    "table_sign": ("招牌", "table sign"),
    "extension_armed": ("延时已备", "extension armed"),
    "extension": ("延时", "ext."),
    "chat": ("聊天", "Chat"),
    "level": ("等级", "level"),
    "rating": ("积分", "rating"),
    "inventory": ("背包", "Inventory"),
    "shop": ("商店", "Shop"),
    "price": ("价格", "Price"),
    "held": ("持有", "Held"),
    "item": ("道具", "Item"),
    "leaderboard": ("排行榜", "Leaderboard"),
    "rank": ("名次", "Rank"),
    "name": ("名字", "Name"),
    "password": ("桌子密码", "Table password"),
    "bought": ("已购买", "bought"),
    "awarded": ("获得道具", "item won"),
    "extended": ("延时 +90秒", "timer extended by 90 s"),
}

RELATIVE_ZH = ("", "上", "对", "下")  # claimed from: left (上家), opposite, right (下家)
RELATIVE_EN = ("", "<", "^", ">")


def tr(key: str, lang: str = "zh") -> str:
    """The interface text for ``key`` in ``lang`` (the key itself if unknown)."""
    pair = TEXT.get(key)
    if pair is None:
        return key
    return pair[0] if lang == "zh" else pair[1]


def relative_mark(claimed_from: int, lang: str = "zh") -> str:
    """Who a meld was claimed from, relative to its owner: 上/对/下 or </^/>."""
    return (RELATIVE_ZH if lang == "zh" else RELATIVE_EN)[claimed_from]
