"""The host's TLS, metrics and log settings: TOML keys (paths relative to the file),
command-line flags over them, and bad values refused with the setting's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from gbmj_server.cli import _config, _serve_parser
from gbmj_server.config import ConfigError, ServerConfig, load_config_file


def test_toml_keys_then_flags(tmp_path: Path) -> None:
    toml = tmp_path / "etc" / "server.toml"
    toml.parent.mkdir()
    toml.write_text(
        'tls_cert = "tls/cert.pem"\ntls_key = "tls/key.pem"\nmetrics_port = 9415\n'
        'metrics_host = "0.0.0.0"\nlog_format = "json"\nlog_file = "/var/log/gbmj.log"\n'
    )
    config = load_config_file(toml)
    assert config == ServerConfig(
        tls_cert=toml.parent / "tls/cert.pem",
        tls_key=toml.parent / "tls/key.pem",
        metrics_port=9415,
        metrics_host="0.0.0.0",
        log_format="json",
        log_file=Path("/var/log/gbmj.log"),
    )
    args = _serve_parser().parse_args(
        ["--config", str(toml), "--metrics-port", "0", "--log-format", "text"]
    )
    assert _config(args) == ServerConfig(
        tls_cert=toml.parent / "tls/cert.pem",
        tls_key=toml.parent / "tls/key.pem",
        metrics_port=0,
        metrics_host="0.0.0.0",
        log_file=Path("/var/log/gbmj.log"),
    )
    plain = _config(_serve_parser().parse_args(["--insecure"]))
    assert plain.insecure and plain.tls_cert is None
    assert not _config(_serve_parser().parse_args([])).insecure  # TLS by default


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("metrics_port = 70000", "metrics_port"),
        ('metrics_port = "9415"', "metrics_port"),
        ("metrics_host = 1", "metrics_host"),
        ('log_format = "xml"', "log_format"),
        ("log_file = 3", "log_file"),
        ('insecure = "yes"', "insecure"),
        ("tls_cert = true", "tls_cert"),
        ('node = "two words"', "node"),
        ('advertise = "nowhere"', "advertise"),
        ("lease_time = 0.5", "lease_time"),
        ('tournaments = "no"', "tournaments"),
    ],
)
def test_bad_values_are_refused_by_name(tmp_path: Path, line: str, named: str) -> None:
    toml = tmp_path / "server.toml"
    toml.write_text(line + "\n")
    with pytest.raises(ConfigError, match=named):
        load_config_file(toml)


def test_settings_that_disagree_are_refused_on_the_command_line(tmp_path: Path) -> None:
    pem = str(tmp_path / "x.pem")
    for argv in (["--tls-key", pem], ["--insecure", "--tls-cert", pem, "--tls-key", pem]):
        with pytest.raises(ConfigError):
            _config(_serve_parser().parse_args(argv))


def test_the_door_secret_is_a_setting_and_a_door_needs_what_it_serves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``door_secret`` from the settings file (32 characters at least); ``gbmj-server
    door`` refuses a bad game address, a short secret, SSH without the game's database
    and no door at all, each saying why (exit status 2)."""
    from gbmj_server.cli import door

    secret = "k" * 40
    toml = tmp_path / "server.toml"
    toml.write_text(f'door_secret = "{secret}"\n')
    assert load_config_file(toml).door_secret == secret
    toml.write_text('door_secret = "short"\n')
    with pytest.raises(ConfigError, match="door_secret"):
        load_config_file(toml)
    base = ["--server", "127.0.0.1:7415", "--insecure"]
    for argv, why in (
        ([*base, "--web-port", "0", "--server", "no-port"], "--server must be HOST:PORT"),
        ([*base, "--ssh-port", "0"], "give --db"),  # SSH signs players in
        (base, "no door to serve"),
    ):
        assert door(argv) == 2
        assert why in capsys.readouterr().err


def test_node_settings_then_flags(tmp_path: Path) -> None:
    """Several nodes on one PostgreSQL (docs/hosting.md, "More than one machine")."""
    toml = tmp_path / "server.toml"
    toml.write_text(
        'db = "postgresql://gbmj@db.example.org/gbmj"\nnode = "game-1"\n'
        'advertise = "game-1.example.org:7415"\nlease_time = 15\ntournaments = false\n'
    )
    config = load_config_file(toml)
    assert (config.node, config.advertise, config.lease_time) == (
        "game-1",
        "game-1.example.org:7415",
        15.0,
    )
    assert not config.tournaments
    args = _serve_parser().parse_args(
        ["--config", str(toml), "--node", "game-2", "--advertise", "10.0.0.2:7415"]
    )
    flagged = _config(args)
    assert (flagged.node, flagged.advertise) == ("game-2", "10.0.0.2:7415")
    # Each node answers admin commands on its own socket.
    assert flagged.admin_path != config.admin_path
    with pytest.raises(ConfigError, match="node"):
        _config(_serve_parser().parse_args(["--node", "../etc"]))
    assert ServerConfig().node  # the host name by default


@pytest.mark.parametrize(
    ("table", "reason"),
    [
        ("nonsense = 3", "limits: unknown key 'nonsense' (known: max_connections"),
        ("outbox_frames = 1.5", "limits: outbox_frames must be a whole number, at least 0"),
        ("request_rate = -1", "limits: request_rate must be a number, at least 0"),
        ('trusted = ["x"]', "limits: trusted must be a list of IP addresses"),
    ],
)
def test_a_bad_limit_is_refused_with_its_key_and_what_it_must_be(
    tmp_path: Path, table: str, reason: str
) -> None:
    toml = tmp_path / "server.toml"
    toml.write_text(f"[limits]\n{table}\n")
    with pytest.raises(ConfigError) as info:
        load_config_file(toml)
    assert str(info.value).startswith(reason)
