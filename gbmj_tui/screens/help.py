"""Help (``?`` / F1): the key bindings and every fan of the rules."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from gbmj_tui.tiles import TileStyle
from gbmj_tui.widgets.fans import reference_table
from gbmj_tui.widgets.hand import KEY_LABELS

KEYS = {
    "zh": (
        ("<- ->  Home End", "在手牌中移动选择"),
        (" ".join(KEY_LABELS), "按位置选牌 (牌下方标出); 再按一次即打出"),
        ("Enter / 鼠标点两下", "打出选中的牌"),
        ("h", "和牌 / 自摸"),
        ("g", "杠 (暗杠、加杠: 选中的牌)"),
        ("p", "碰"),
        ("1 2 3", "吃 (每种吃法一个键)"),
        ("Space", "过"),
        ("a", "托管 开/关"),
        ("w", "自动和 开/关"),
        ("x", "自动过 开/关 (和牌除外)"),
        ("c", "桌内聊天 (右侧聊天栏)"),
        ("e", "延时卡 备用/取消 (自己出牌超时时延长90秒)"),
        ("t", "使用记牌器 (本盘显示未见的牌)"),
        ("i / l", "大厅: 背包与商店 / 排行榜"),
        ("k", "大厅: SSH 公钥"),
        ("r", "准备 (开局前)"),
        ("b", "空位加机器人 (桌主, 开局前)"),
        ("Esc", "回大厅"),
        ("? / F1", "帮助"),
        ("Ctrl+Q", "退出"),
    ),
    "en": (
        ("<- ->  Home End", "move the selection in your hand"),
        (" ".join(KEY_LABELS), "select a tile by position (shown under it); again to discard"),
        ("Enter / click twice", "discard the selected tile"),
        ("h", "win (on a discard, or self-drawn)"),
        ("g", "kong (concealed, or add to a pung: the selected tile)"),
        ("p", "pung"),
        ("1 2 3", "chow (one key per way to chow)"),
        ("Space", "pass"),
        ("a", "auto-play on/off (the server plays for you)"),
        ("w", "auto-win on/off (declare every win offered)"),
        ("x", "auto-pass on/off (pass every claim but a win)"),
        ("c", "table chat (shown in the chat panel)"),
        ("e", "arm / disarm a timer extension (+90 s when your turn runs out)"),
        ("t", "use a tile counter (unseen tiles for the rest of the hand)"),
        ("i / l", "lobby: items and shop / leaderboard"),
        ("k", "lobby: SSH keys"),
        ("r", "ready (before the match)"),
        ("b", "fill empty seats with bots (table owner, before the match)"),
        ("Esc", "back to the lobby"),
        ("? / F1", "this help"),
        ("Ctrl+Q", "quit"),
    ),
}


def keys_table(lang: str = "zh") -> Table:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    for key, what in KEYS[lang]:
        table.add_row(key, what)
    return table


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("escape,question_mark,f1,q", "close", "Close")]  # noqa: RUF012

    def __init__(self, style: TileStyle = TileStyle.CJK, lang: str = "zh") -> None:
        super().__init__()
        self.tile_style = style
        self.lang = lang

    def compose(self) -> ComposeResult:
        title = "按键" if self.lang == "zh" else "Keys"
        fans = (
            "番种表 (起和8番, 花牌不计入)"
            if self.lang == "zh"
            else "Fans (8 to win, flowers not counted)"
        )
        body = Group(
            Text(title, style="bold underline"),
            keys_table(self.lang),
            Text(""),
            Text(fans, style="bold underline"),
            reference_table(style=self.tile_style),
        )
        with VerticalScroll(id="help-box"):
            yield Static(body)
        yield Footer()

    def on_mount(self) -> None:
        self.set_class(self.tile_style is TileStyle.ASCII, "-ascii")

    def action_close(self) -> None:
        self.dismiss(None)
