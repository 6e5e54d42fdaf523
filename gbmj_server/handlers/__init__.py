"""Every request handler, by domain; ``HANDLERS`` is the dispatcher's table."""

from gbmj_server.handlers import (
    accounts,
    chat,
    history,
    lobby,
    shop,
    ssh_keys,
    table,
    tournaments,
)

HANDLERS = accounts.handlers.merged(
    chat.handlers,
    history.handlers,
    lobby.handlers,
    shop.handlers,
    ssh_keys.handlers,
    table.handlers,
    tournaments.handlers,
)

__all__ = ["HANDLERS"]
