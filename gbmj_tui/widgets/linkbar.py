"""The connection's state on screen: nothing while online; while the client reconnects,
one line saying so (which attempt, how long until it), so that a dropped connection is
never a frozen table."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from gbmj_tui.i18n import tr
from gbmj_tui.messages import Link, LinkState


def link_text(state: LinkState, lang: str) -> Text:
    if state.link is Link.RECONNECTING:
        text = tr("Connection lost: reconnecting (attempt {attempt}, in {seconds:.0f} s)", lang)
        return Text(text.format(attempt=state.attempt, seconds=max(state.delay, 1)))
    if state.link is Link.OFFLINE:
        return Text(tr("Not connected", lang))
    return Text("")


class LinkBar(Widget):
    """A one-line banner while the connection is down."""

    DEFAULT_CSS = """
    LinkBar { height: 1; background: $error; color: $text; text-style: bold; padding: 0 1; }
    """

    state: reactive[LinkState] = reactive(LinkState(Link.ONLINE))

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang
        self.display = False

    def watch_state(self, state: LinkState) -> None:
        self.display = state.link is not Link.ONLINE

    def render(self) -> Text:
        return link_text(self.state, self.lang)
