"""The player's SSH keys: the store (migration 3), the game server's requests for them,
and the host's ``ssh_*`` settings."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest
import trio
from server.conftest import TEST_CONFIG, start
from server.wireclient import WireClient

from gbmj_server.config import ConfigError, load_config_file
from gbmj_server.server import Server
from gbmj_server.ssh import keys
from gbmj_server.ssh.service import load_host_key
from gbmj_server.storage import Storage, hash_password


def public_line(comment: str = "me@laptop") -> tuple[asyncssh.SSHKey, str]:
    key = asyncssh.generate_private_key("ssh-ed25519", comment=comment)
    return key, key.export_public_key().decode().strip()


def test_keys_are_added_matched_and_removed(tmp_path: Path) -> None:
    with Storage(tmp_path / "g.sqlite3") as store:
        alice = store.create_account("alice", hash_password("alice-pw"))
        bob = store.create_account("bob", hash_password("bob-pw"))
        key, line = public_line()
        other, _ = public_line()
        added = keys.add_key(store, alice.id, line)
        assert added.fingerprint == key.get_fingerprint("sha256")
        assert (added.algorithm, added.comment) == ("ssh-ed25519", "me@laptop")
        assert keys.list_keys(store, alice.id) == [added]
        assert keys.has_key(store, alice.id, key)
        assert not keys.has_key(store, alice.id, other)
        assert not keys.has_key(store, bob.id, key)
        with pytest.raises(keys.BadKey, match="already"):
            keys.add_key(store, alice.id, line)
        with pytest.raises(keys.BadKey, match="not an OpenSSH"):
            keys.add_key(store, alice.id, "ssh-ed25519 not-base64!")
        assert keys.remove_key(store, alice.id, added.fingerprint)
        assert not keys.remove_key(store, alice.id, added.fingerprint)
        assert not keys.has_key(store, alice.id, key)


def test_at_most_ten_keys_an_account(tmp_path: Path) -> None:
    with Storage(tmp_path / "g.sqlite3") as store:
        alice = store.create_account("alice", hash_password("alice-pw"))
        for _ in range(keys.MAX_KEYS):
            keys.add_key(store, alice.id, public_line()[1])
        with pytest.raises(keys.BadKey, match="at most 10"):
            keys.add_key(store, alice.id, public_line()[1])


def test_the_host_key_is_made_once_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "data" / "ssh_host_ed25519_key"
    first = load_host_key(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert load_host_key(path).get_fingerprint() == first.get_fingerprint()


def test_ssh_settings_from_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text(
        "port = 7000\nssh_port = 2222\nssh_max_sessions = 5\nssh_idle_timeout = 600\n"
        'ssh_unknown_users = "register"\nssh_failed_logins = 4\n'
    )
    ssh = load_config_file(path).ssh
    assert (ssh.port, ssh.max_sessions, ssh.idle_timeout) == (2222, 5, 600.0)
    assert (ssh.unknown_users, ssh.failed_logins) == ("register", 4)
    assert load_config_file(tmp_path / "server.toml").port == 7000
    for bad in ('ssh_unknown_users = "everyone"', "ssh_port = 70000", "ssh_max_sessions = 0"):
        path.write_text(bad)
        with pytest.raises(ConfigError):
            load_config_file(path)


@pytest.mark.trio
async def test_a_player_manages_keys_through_the_game_server(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    storage = Storage(tmp_path / "g.sqlite3")
    server = Server(storage, TEST_CONFIG)
    running = await start(nursery, server)
    port = server.port

    async def client() -> WireClient:
        c = WireClient(await trio.open_tcp_stream("127.0.0.1", port))
        await c.hello()
        return c

    alice = await client()
    await alice.register("alice")
    assert list((await alice.ok("list_ssh_keys"))["keys"]) == []
    key, line = public_line("alice@home")
    reply = await alice.ok("add_ssh_key", public_key=line)
    fingerprint = key.get_fingerprint("sha256")
    expected = {"fingerprint": fingerprint, "algorithm": "ssh-ed25519", "comment": "alice@home"}
    assert list(reply["keys"]) == [expected]
    bad = await alice.request("add_ssh_key", public_key="ssh-rsa nonsense")
    assert bad["type"] == "error" and bad["code"] == "out_of_range"
    assert list((await alice.ok("remove_ssh_key", fingerprint=fingerprint))["keys"]) == []
    gone = await alice.request("remove_ssh_key", fingerprint=fingerprint)
    assert gone["code"] == "out_of_range"

    guest = await client()
    await guest.ok("guest")
    refused = await guest.request("list_ssh_keys")
    assert refused["code"] == "guest_not_allowed"
    await running.stop()
    storage.close()
