"""The player's items and the shop (docs/rules.md §2.6), and the leaderboard (§2.7).

Both are modal screens that ask the server themselves (``Requested`` with the screen
as ``reply_to``) and show its answers. The shop says what each item does and costs,
including what using one costs besides (the timer extension's 270 coins, shared by the
other seats), and asks before it buys. The inventory lists every slot: a gem is used
from there (u), and what is in one slot moves to another (m on the first, m on the
second: they swap).
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from gbmj_tui.i18n import N_, tr
from gbmj_tui.messages import Refused, Replied, Requested
from gbmj_tui.screens.dialogs import Confirm
from gbmj_tui.widgets.keybar import KeyBar
from gbmj_tui.words import ITEM_USES, item_name
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.vocabulary import Cloth, Item

GEMS = frozenset({Item.GEM_SHARD, Item.GEM, Item.PERFECT_GEM})  # used from the inventory


def inventory_text(inventory: m.Inventory | None, lang: str) -> Text:
    """``背包 (2/30): 延时卡 x3  记牌器 x1`` — or that a guest holds no items."""
    if inventory is None:
        return Text("...")
    if not inventory.capacity:
        return Text(tr("Guests hold no items: register to buy them", lang))
    words = tr("Inventory ({used}/{capacity}):", lang)
    out = Text(words.format(used=len(inventory.slots), capacity=inventory.capacity))
    if not inventory.slots:
        out.append(" -")
    for stack in inventory.slots:
        out.append(f"  {item_name(stack.item, lang)} x{stack.count}")
    return out


def slot_rows(inventory: m.Inventory) -> list[tuple[int, m.ItemStack | None]]:
    """Every slot of the inventory, empty ones too, and any beyond its end that still
    hold items (the host made the inventory smaller)."""
    by_slot = {s.slot: s for s in inventory.slots if s.slot is not None}
    last = max([inventory.capacity - 1, *by_slot])
    return [(n, by_slot.get(n)) for n in range(last + 1)]


def held(inventory: m.Inventory | None, item: str) -> int:
    """How many of ``item`` the inventory holds (over all its stacks)."""
    if inventory is None:
        return 0
    return sum(s.count for s in inventory.slots if s.item == item)


def item_use(offer: m.ShopOffer, lang: str) -> str:
    """What an item does, with what using one costs besides its price."""
    try:
        words = ITEM_USES[Item(offer.item)]
    except (ValueError, KeyError):
        return ""
    return tr(words, lang).format(cost=offer.use_cost or 0)


class ShopScreen(ModalScreen[None]):
    """The inventory and the shop's offers; Enter buys one of the selected item (after
    a yes)."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("enter", "buy", N_("Buy one"), priority=True),
        Binding("u", "use", N_("Use")),
        Binding("m", "move", N_("Move")),
        Binding("escape,i", "close", N_("Close")),
    ]

    def __init__(
        self, lang: str, profile: m.Profile | None = None, inventory: m.Inventory | None = None
    ) -> None:
        super().__init__()
        self._ready = False  # the widgets exist (from on_mount on)
        self.lang = lang
        self.coins = profile.coins if profile is not None else None
        self.inventory = inventory
        self.offers: tuple[m.ShopOffer, ...] = ()
        self.moving: int | None = None  # the slot marked to move (m), until the second m

    def compose(self) -> ComposeResult:
        with Vertical(id="shop-box"):
            yield Static(id="shop-coins")
            yield Static(id="shop-inventory")
            yield DataTable(id="shop-offers", cursor_type="row")
            yield DataTable(id="shop-slots", cursor_type="row")
            yield Static(id="shop-use")
            yield Static(id="shop-note")
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        self._ready = True
        lang = self.lang
        self.query_one("#shop-box").border_title = tr("Shop / Inventory", lang)
        table = self.query_one("#shop-offers", DataTable)
        for key, label in (("item", N_("Item")), ("price", N_("Price")), ("held", N_("Held"))):
            table.add_column(tr(label, lang), key=key)
        slots = self.query_one("#shop-slots", DataTable)
        for key, label in (("slot", N_("Slot")), ("item", N_("Item")), ("count", N_("Count"))):
            slots.add_column(tr(label, lang), key=key)
        self._redraw()
        table.focus()
        self.post_message(Requested(m.GetShop(), reply_to=self))
        self.post_message(Requested(m.GetInventory(), reply_to=self))

    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        reply = replied.reply
        if isinstance(reply, m.Shop):
            self.offers = reply.offers
        elif isinstance(reply, m.Inventory):
            self.inventory = reply
            if isinstance(replied.request, m.UseItem):
                used = tr("Used: {item}", self.lang)
                self.note(used.format(item=item_name(replied.request.item, self.lang)))
            if isinstance(replied.request, m.Buy):
                bought = tr("Bought: {item} x{count}", self.lang)
                name = item_name(replied.request.item, self.lang)
                self.note(bought.format(item=name, count=replied.request.count))
        self._redraw()

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        text = refused.text
        cap = self.inventory.gem_cap if self.inventory is not None else None
        if refused.code == ErrorCode.RATING_CAPPED and cap is not None:
            text += " " + tr("(the gem cap: rating {cap})", self.lang).format(cap=cap)
        self.note(text)

    def set_inventory(self, inventory: m.Inventory) -> None:
        self.inventory = inventory
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
        self.query_one("#shop-coins", Static).update(
            Text(tr("Coins: {coins}", lang).format(coins=coins))
        )
        self.query_one("#shop-inventory", Static).update(inventory_text(self.inventory, lang))
        table = self.query_one("#shop-offers", DataTable)
        row = table.cursor_row
        table.clear()
        for offer in self.offers:
            count = str(held(self.inventory, offer.item))
            name = Text(item_name(offer.item, lang))
            table.add_row(name, Text(str(offer.price)), Text(count), key=offer.item)
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1))
        self._draw_slots()
        self._describe()

    def _draw_slots(self) -> None:
        table = self.query_one("#shop-slots", DataTable)
        row = table.cursor_row
        table.clear()
        if self.inventory is None:
            return
        for n, stack in slot_rows(self.inventory):
            mark = "*" if n == self.moving else ""
            name = item_name(stack.item, self.lang) if stack is not None else "-"
            count = str(stack.count) if stack is not None else ""
            table.add_row(Text(f"{n + 1}{mark}"), Text(name), Text(count), key=str(n))
        if table.row_count:
            table.move_cursor(row=min(max(row, 0), table.row_count - 1))

    def _slot(self) -> tuple[int, m.ItemStack | None] | None:
        """The inventory slot under the cursor."""
        table = self.query_one("#shop-slots", DataTable)
        rows = slot_rows(self.inventory) if self.inventory is not None else []
        if not 0 <= table.cursor_row < len(rows):
            return None
        return rows[table.cursor_row]

    def action_use(self) -> None:
        """Use the gem in the slot under the inventory's cursor."""
        picked = self._slot()
        if picked is None or picked[1] is None:
            return
        item = Item(picked[1].item)
        if item not in GEMS:
            self.note(tr("That item is used at a table.", self.lang))
            return
        self.note("...")
        self.post_message(Requested(m.UseItem(item=item), reply_to=self))

    def action_move(self) -> None:
        """The first m marks a slot with items; the second moves them to the slot under
        the cursor (swapping with what is there)."""
        picked = self._slot()
        if picked is None:
            return
        n, stack = picked
        if self.moving is None:
            if stack is not None:
                self.moving = n
                self.note(tr("Move to which slot? (m again)", self.lang))
                self._draw_slots()
            return
        source, self.moving = self.moving, None
        if source == n:
            self._draw_slots()
            return
        self.post_message(Requested(m.MoveItem(from_slot=source, to_slot=n), reply_to=self))

    @on(DataTable.RowHighlighted)
    def _describe(self) -> None:
        offer = self.selected
        text = item_use(offer, self.lang) if offer is not None else ""
        self.query_one("#shop-use", Static).update(Text(text, style="italic"))

    @property
    def selected(self) -> m.ShopOffer | None:
        table = self.query_one("#shop-offers", DataTable)
        if not table.row_count or not 0 <= table.cursor_row < len(self.offers):
            return None
        return self.offers[table.cursor_row]

    def action_buy(self) -> None:
        offer = self.selected
        if offer is None:
            return
        question = tr("Buy one {item} for {price} coins?", self.lang)
        question = question.format(item=item_name(offer.item, self.lang), price=offer.price)

        def answered(yes: bool | None) -> None:
            if yes:
                self.note("...")
                self.post_message(Requested(m.Buy(item=offer.item, count=1), reply_to=self))

        self.app.push_screen(Confirm(question, self.lang), answered)

    @on(DataTable.RowSelected)
    def _row(self, event: DataTable.RowSelected) -> None:
        event.stop()  # Enter is the buy binding; a click selects only

    def action_close(self) -> None:
        self.dismiss(None)


CLOTHS: dict[Cloth, str] = {
    Cloth.GREEN: N_("green felt"),
    Cloth.RED: N_("red"),
    Cloth.BLUE: N_("blue"),
    Cloth.WOOD: N_("wood"),
}


def lay_cloth(screen: Screen[None], cloth: str | None) -> None:
    """The table screen's board takes the tablecloth's look (its class; table.tcss)."""
    for c in Cloth:
        screen.set_class(cloth == c, f"-cloth-{c.value}")


class ClothDialog(ModalScreen[Cloth | None]):
    """Which tablecloth to lay (one from the inventory is used): Enter picks, Escape not."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]  # noqa: RUF012

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical(id="shop-box"):
            yield Static(tr("Lay a tablecloth (uses one):", self.lang))
            yield OptionList(
                *(Option(tr(words, self.lang), id=c.value) for c, words in CLOTHS.items()),
                id="cloths",
            )
        yield KeyBar(self.lang)

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(Cloth(event.option.id))

    def action_cancel(self) -> None:
        self.dismiss(None)


class LeaderboardScreen(ModalScreen[None]):
    """The best players by rating: rank, name, level, rating."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("escape,l", "close", N_("Close"))]  # noqa: RUF012

    def __init__(self, lang: str, me: str | None = None) -> None:
        super().__init__()
        self._ready = False  # the widgets exist (from on_mount on)
        self.lang = lang
        self.me = me
        self.entries: tuple[m.LeaderEntry, ...] = ()

    def compose(self) -> ComposeResult:
        with Vertical(id="leader-box"):
            yield DataTable(id="leaders", cursor_type="row", zebra_stripes=True)
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        self._ready = True
        self.query_one("#leader-box").border_title = tr("Leaderboard", self.lang)
        table = self.query_one("#leaders", DataTable)
        for key, label in (
            ("rank", N_("Rank")),
            ("name", N_("Name")),
            ("level", N_("Level")),
            ("rating", N_("Rating")),
        ):
            table.add_column(tr(label, self.lang), key=key)
        table.focus()
        self.post_message(Requested(m.GetLeaderboard(limit=50), reply_to=self))

    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        if isinstance(replied.reply, m.Leaderboard):
            self.entries = replied.reply.entries
            self._redraw()

    def _redraw(self) -> None:
        table = self.query_one("#leaders", DataTable)
        table.clear()
        for e in self.entries:
            name = Text(e.name, style="bold reverse" if e.name == self.me else "")
            table.add_row(Text(str(e.rank)), name, Text(f"Lv{e.level}"), Text(str(e.rating)))

    def action_close(self) -> None:
        self.dismiss(None)
