"""The player's items and the shop (SPEC §2.6), and the leaderboard (SPEC §2.7).

Both are modal screens fed by the app (``set_inventory``, ``set_shop``, ``set_entries``)
from the server's ``inventory``, ``shop`` and ``leaderboard`` messages; buying asks the
app (``App.buy``), which answers with the new inventory or shows the server's error.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from gbmj_tui.i18n import tr
from protocol import messages as m


def item_name(item: str, lang: str = "zh") -> str:
    """An item's name in the interface language (``timer_extension``: 延时卡)."""
    return tr(item, lang)


def inventory_text(inventory: m.Inventory | None, lang: str = "zh") -> Text:
    """``背包 (2/30): 延时卡 x3  记牌器 x1`` — or that a guest holds no items."""
    if inventory is None:
        return Text("…")
    if not inventory.capacity:
        return Text("游客没有背包, 注册后可购买道具" if lang == "zh" else "guests hold no items")
    out = Text(f"{tr('inventory', lang)} ({len(inventory.slots)}/{inventory.capacity}):")
    if not inventory.slots:
        out.append(" -")
    for stack in inventory.slots:
        out.append(f"  {item_name(stack.item, lang)} x{stack.count}")
    return out


def held(inventory: m.Inventory | None, item: str) -> int:
    """How many of ``item`` the inventory holds (over all its stacks)."""
    if inventory is None:
        return 0
    return sum(s.count for s in inventory.slots if s.item == item)


class ShopScreen(ModalScreen[None]):
    """The inventory and the shop's offers; Enter buys one of the selected item."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("escape,i", "dismiss(None)", "Close"),
        Binding("enter", "buy", "Buy one", show=True, priority=True),
    ]

    def __init__(self, lang: str = "zh", coins: int | None = None) -> None:
        super().__init__()
        self.lang = lang
        self.coins = coins
        self.inventory: m.Inventory | None = None
        self.offers: tuple[m.ShopOffer, ...] = ()
        self._ready = False  # widgets exist once mounted

    def compose(self) -> ComposeResult:
        with Vertical(id="shop-box"):
            yield Static(id="shop-coins")
            yield Static(id="shop-inventory")
            table: DataTable[str] = DataTable(id="shop-offers", cursor_type="row")
            yield table
            yield Static(id="shop-note")
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        lang = self.lang
        self.query_one("#shop-box").border_title = f"{tr('shop', lang)} / {tr('inventory', lang)}"
        table = self.query_one("#shop-offers", DataTable)
        for key in ("item", "price", "held"):
            table.add_column(tr(key, lang), key=key)
        self._ready = True
        self._redraw()
        table.focus()

    def set_inventory(self, inventory: m.Inventory) -> None:
        self.inventory = inventory
        self._redraw()

    def set_shop(self, shop: m.Shop) -> None:
        self.offers = shop.offers
        self._redraw()

    def set_coins(self, coins: int) -> None:
        self.coins = coins
        self._redraw()

    def note(self, text: str) -> None:
        if self._ready:
            self.query_one("#shop-note", Static).update(Text(text))

    def _redraw(self) -> None:
        if not self._ready:
            return
        lang = self.lang
        coins = "-" if self.coins is None else str(self.coins)
        self.query_one("#shop-coins", Static).update(Text(f"{tr('coins', lang)}: {coins}"))
        self.query_one("#shop-inventory", Static).update(inventory_text(self.inventory, lang))
        table = self.query_one("#shop-offers", DataTable)
        row = table.cursor_row
        table.clear()
        for offer in self.offers:
            count = str(held(self.inventory, offer.item))
            table.add_row(item_name(offer.item, lang), str(offer.price), count, key=offer.item)
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1))

    @property
    def selected(self) -> m.ShopOffer | None:
        table = self.query_one("#shop-offers", DataTable)
        if not table.row_count:
            return None
        return self.offers[table.cursor_row]

    def action_buy(self) -> None:
        offer = self.selected
        if offer is not None and hasattr(self.app, "buy"):
            self.note("…")
            self.app.buy(offer.item)

    @on(DataTable.RowSelected)
    def _row(self, event: DataTable.RowSelected) -> None:
        event.stop()  # Enter is the buy binding; a click selects only


class LeaderboardScreen(ModalScreen[None]):
    """The best players by rating: rank, name, level, rating."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("escape,l", "dismiss(None)", "Close")]  # noqa: RUF012

    def __init__(self, lang: str = "zh", me: str | None = None) -> None:
        super().__init__()
        self.lang = lang
        self.me = me
        self.entries: tuple[m.LeaderEntry, ...] = ()
        self._ready = False

    def compose(self) -> ComposeResult:
        with Vertical(id="leader-box"):
            yield DataTable(id="leaders", cursor_type="row", zebra_stripes=True)
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#leader-box").border_title = tr("leaderboard", self.lang)
        table = self.query_one("#leaders", DataTable)
        for key in ("rank", "name", "level", "rating"):
            table.add_column(tr(key, self.lang).capitalize(), key=key)
        self._ready = True
        self._redraw()
        table.focus()

    def set_entries(self, entries: tuple[m.LeaderEntry, ...]) -> None:
        self.entries = entries
        self._redraw()

    def _redraw(self) -> None:
        if not self._ready:
            return
        table = self.query_one("#leaders", DataTable)
        table.clear()
        for e in self.entries:
            name = Text(e.name, style="bold reverse" if e.name == self.me else "")
            table.add_row(str(e.rank), name, f"Lv{e.level}", str(e.rating))
