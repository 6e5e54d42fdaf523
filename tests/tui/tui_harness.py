"""Running the table screen in Textual's test pilot, and reading what it shows.

``screen_text`` reads the screen through Textual's public widget API only: every shown
widget's own lines (``Widget.render_lines``: its text, borders and titles) painted at
its place on the screen (``Widget.region``), parents before children and lower layers
before higher ones (the notifications), as a terminal would show them; ``widget_text``
reads one widget. ``until`` waits for a condition instead of a fixed time.
"""

from __future__ import annotations

import time

from rich.cells import cell_len
from textual import events
from textual.app import App
from textual.geometry import Region
from textual.widget import Widget

from gbmj_tui.app import GbmjApp
from gbmj_tui.messages import ActionChosen, Requested
from gbmj_tui.model import TableView
from gbmj_tui.screens.table import TableScreen
from gbmj_tui.tiles import TileStyle
from protocol import messages as m
from protocol.messages import ActionChoice

TRIES = 1500  # ``until``'s bound: 1,500 settles of the app and short waits (~40 s here)


async def until(pilot, condition, tries: int = TRIES, *, seconds: float = 0) -> None:
    """Wait until ``condition()`` holds: the app settles (``pilot.pause()``: the screen's
    pending messages handled, the loop idle), then, while it does not hold, a short wait
    for the network, a worker or a timer, at most ``tries`` times. A bound in tries, not
    a time: a busy machine takes longer per try, not more tries; a broken test fails
    with the screen shown instead of hanging. What waits on time outside the app (a
    lease to lapse on another server) names ``seconds`` too: it is waited for at least
    that long, however quick the tries."""
    start = time.monotonic()
    n = 0
    while n < tries or time.monotonic() - start < seconds:
        n += 1
        await pilot.pause()
        if condition():
            return
        await pilot.pause()
    raise AssertionError(f"no change after {n} tries; screen:\n{screen_text(pilot.app)}")


class TableHost(App[None]):
    """A bare app showing one table screen; records the actions and requests the
    screen sends (the real app would send them to the server)."""

    def __init__(self, view: TableView, style: TileStyle = TileStyle.CJK, lang: str = "zh"):
        super().__init__()
        self.table = TableScreen(view, tile_style=style, lang=lang)
        self.sent: list[ActionChoice] = []
        self.requests: list[m.Message] = []

    def on_mount(self) -> None:
        self.push_screen(self.table)

    def on_action_chosen(self, message: ActionChosen) -> None:
        self.sent.append(message.choice)

    def on_requested(self, message: Requested) -> None:
        self.requests.append(message.request)


def _shown(widget: Widget) -> bool:
    """Displayed with all its ancestors, and visible (visibility is inherited, but a
    child may show inside a hidden parent: the notifications in their rack)."""
    if not widget.visible:
        return False
    node: Widget | None = widget
    while isinstance(node, Widget):
        if not node.display:
            return False
        node = node.parent
    return True


def _paint(canvas: list[list[str]], widget: Widget, clip: Region) -> None:
    region = widget.region
    if not region.area:
        return
    lines = widget.render_lines(Region(0, 0, region.width, region.height))
    for dy, strip in enumerate(lines):
        y = region.y + dy
        if not clip.y <= y < clip.bottom:
            continue
        x = region.x
        for char in strip.text:
            width = cell_len(char)
            if clip.x <= x and x + width <= clip.right:
                canvas[y][x] = char
                if width == 2:
                    canvas[y][x + 1] = ""  # the right half of a wide character
            x += width


def _layer(widget: Widget, order: tuple[str, ...]) -> int:
    """The paint order of a widget's layer (its own, or its nearest ancestor's)."""
    node: Widget | None = widget
    while isinstance(node, Widget):
        if node.styles.layer and node.styles.layer in order:
            return order.index(node.styles.layer)
        node = node.parent
    return 0


def screen_text(app: App) -> str:
    """The characters on the terminal, one line per row (trailing spaces dropped)."""
    screen = app.screen
    width, height = app.size
    canvas = [[" "] * width for _ in range(height)]
    whole = Region(0, 0, width, height)
    painted: list[tuple[Widget, Region]] = []
    stack: list[tuple[Widget, Region]] = [(screen, whole)]
    while stack:  # parents first, then their children in order, each clipped to its parent
        widget, clip = stack.pop(0)
        if widget is not screen and not _shown(widget):
            if widget.display:  # hidden, but its children may show
                stack[0:0] = [(child, clip) for child in widget.children]
            continue
        painted.append((widget, clip))
        inner = clip.intersection(widget.content_region) if widget is not screen else whole
        stack[0:0] = [(child, inner) for child in widget.children]
    order = tuple(screen.layers)
    for widget, clip in sorted(painted, key=lambda p: _layer(p[0], order)):  # stable
        _paint(canvas, widget, clip)
    return "\n".join("".join(row).rstrip() for row in canvas)


def widget_text(widget: Widget) -> str:
    """The characters one widget shows (its own lines, without its children)."""
    region = widget.region
    lines = widget.render_lines(Region(0, 0, region.width, region.height))
    return "\n".join(strip.text.rstrip() for strip in lines)


def terminal_text(app: App) -> str:
    """Every character the terminal shows, scroll bars, toasts and the screens under a
    modal one included: Textual's own composition of the screen (what
    ``App.export_screenshot`` draws), as text."""
    import io

    from rich.console import Console

    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), record=True, color_system=None,
        legacy_windows=False, safe_box=False,
    )  # fmt: skip
    # The compositor is the one way to the composed screen; export_screenshot uses it.
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    return console.export_text()


class OfflineApp(GbmjApp):
    """The real app without a server, at a table from the start: what it would send
    goes to ``outbox``; ``push(message)`` feeds it a server message as the session
    would (through the session's own dispatch)."""

    def __init__(self, view: TableView, *, lang: str = "zh", ascii: bool = False) -> None:
        super().__init__(lang=lang, ascii=ascii)
        self.start_view = view
        self.outbox: list[m.Message] = []

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # not the app's own start (the connect screen)
        self.set_class(self.options.ascii, "-ascii")
        self.session.view = self.start_view
        self.table_screen = TableScreen(self.start_view, tile_style=self.tile_style, lang=self.lang)
        self.push_screen(self.table_screen)

    def send(self, request: m.Message, reply_to: object = None) -> None:
        # records the request instead of starting a worker
        self.outbox.append(request)

    def push(self, message: m.Message) -> None:
        self.session.receive(message)
