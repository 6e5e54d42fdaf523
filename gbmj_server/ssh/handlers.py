"""The game server's answers to ``list_ssh_keys``, ``add_ssh_key`` and ``remove_ssh_key``:
a player manages the public keys that sign them in over SSH from the client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from gbmj_server.net.errors import RequestError
from gbmj_server.ssh import keys

if TYPE_CHECKING:
    from gbmj_server.net.client import Client
    from gbmj_server.net.server import Server

Handler = Callable[["Client", dict[str, Any]], Awaitable[dict[str, Any] | None]]


def ssh_key_handlers(server: Server) -> dict[str, Handler]:
    """Handlers to add to ``server.handlers``."""

    def player(client: Client) -> int:
        account = client.account
        assert account is not None  # the dispatcher asks for a login first
        if account.is_guest:
            raise RequestError("guest_not_allowed", "guests have no SSH keys: register first")
        return account.id

    async def listing(account_id: int) -> dict[str, Any]:
        found = await server.store.call(keys.list_keys, server.store.storage, account_id)
        return {
            "type": "ssh_keys",
            "keys": [
                {"fingerprint": k.fingerprint, "algorithm": k.algorithm, "comment": k.comment}
                for k in found
            ],
        }

    async def on_list(client: Client, message: dict[str, Any]) -> dict[str, Any]:
        return await listing(player(client))

    async def on_add(client: Client, message: dict[str, Any]) -> dict[str, Any]:
        account_id = player(client)
        try:
            await server.store.call(
                keys.add_key, server.store.storage, account_id, message["public_key"]
            )
        except keys.BadKey as exc:
            raise RequestError("out_of_range", str(exc)) from None
        return await listing(account_id)

    async def on_remove(client: Client, message: dict[str, Any]) -> dict[str, Any]:
        account_id = player(client)
        removed = await server.store.call(
            keys.remove_key, server.store.storage, account_id, message["fingerprint"]
        )
        if not removed:
            raise RequestError("out_of_range", "no such key on this account")
        return await listing(account_id)

    return {"list_ssh_keys": on_list, "add_ssh_key": on_add, "remove_ssh_key": on_remove}
