"""``list_ssh_keys``, ``add_ssh_key``, ``remove_ssh_key``: a player manages the public
keys that sign them in over SSH (docs/hosting.md)."""

from __future__ import annotations

from gbmj_server.net.connection import Connection
from gbmj_server.net.dispatch import Handlers
from gbmj_server.net.errors import RequestError
from gbmj_server.services import Services
from gbmj_server.ssh import keys
from protocol import messages as m
from protocol.errors import ErrorCode

handlers: Handlers[Services] = Handlers()


def _player(conn: Connection) -> int:
    account = conn.session.account
    assert account is not None  # the dispatcher asks for a sign-in first
    if account.is_guest:
        raise RequestError(ErrorCode.GUEST_NOT_ALLOWED, "guests have no SSH keys: register first")
    return account.id


async def _listing(services: Services, account_id: int) -> m.SshKeys:
    found = await services.store.call(keys.list_keys, services.store.storage, account_id)
    return m.SshKeys(
        keys=tuple(
            m.SshKeyInfo(fingerprint=k.fingerprint, algorithm=k.algorithm, comment=k.comment)
            for k in found
        )
    )


@handlers.on(m.ListSshKeys)
async def list_ssh_keys(services: Services, conn: Connection, request: m.ListSshKeys) -> m.Message:
    return await _listing(services, _player(conn))


@handlers.on(m.AddSshKey)
async def add_ssh_key(services: Services, conn: Connection, request: m.AddSshKey) -> m.Message:
    account_id = _player(conn)
    try:
        await services.store.call(
            keys.add_key, services.store.storage, account_id, request.public_key
        )
    except keys.BadKey as exc:
        raise RequestError(ErrorCode.OUT_OF_RANGE, str(exc)) from None
    return await _listing(services, account_id)


@handlers.on(m.RemoveSshKey)
async def remove_ssh_key(
    services: Services, conn: Connection, request: m.RemoveSshKey
) -> m.Message:
    account_id = _player(conn)
    removed = await services.store.call(
        keys.remove_key, services.store.storage, account_id, request.fingerprint
    )
    if not removed:
        raise RequestError(ErrorCode.OUT_OF_RANGE, "no such key on this account")
    return await _listing(services, account_id)
