"""How the client reaches the node a redirect names (``TlsPolicy.to_node``): a client a
front door started takes the node's certificate and its pass there from the redirect;
a player's own client keeps its own way (pinned on first use) and sends no pass."""

from __future__ import annotations

from pathlib import Path

from gbmj_tui.config import Options
from gbmj_tui.connection import TlsPolicy
from protocol import messages as m

FINGERPRINT = "SHA256:" + ":".join(["AB"] * 32)
PASS = "gd1.1999999999.203.0.113.5.AAAAAAAAAAAAAAAAAAAAAA"


def redirect(fingerprint: str | None, door: str | None) -> m.Redirect:
    ticket = "t" * 40
    return m.Redirect(
        table_id=7, address="node-a:7415", ticket=ticket, fingerprint=fingerprint, door=door
    )


def test_a_hosted_client_checks_the_nodes_certificate_and_takes_its_pass() -> None:
    home = TlsPolicy.of(Options(hosted=True, expect="SHA256:00", door="the door's own pass"))
    there = home.to_node(redirect(FINGERPRINT, PASS))
    assert (there.insecure, there.expect, there.door, there.hosted) == (
        False,
        FINGERPRINT,
        PASS,
        True,
    )
    # A node without TLS (no certificate named), and no door secret (no pass).
    plain = home.to_node(redirect(None, None))
    assert plain.insecure and plain.expect is None and plain.door is None


def test_a_players_own_client_keeps_its_pins_and_sends_no_pass(tmp_path: Path) -> None:
    home = TlsPolicy.of(Options(config_path=tmp_path / "settings.json"))
    there = home.to_node(redirect(FINGERPRINT, PASS))
    assert there == home  # pinned on first use, as any server
    assert there.door is None and there.expect is None
