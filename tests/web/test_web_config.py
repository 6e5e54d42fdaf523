"""The ``web_*`` settings: from the TOML file and the command line, bad values refused
with their reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from gbmj_server.cli import _config, _serve_parser
from gbmj_server.config import ConfigError, load_config_file


def config_of(tmp_path: Path, text: str):
    path = tmp_path / "server.toml"
    path.write_text(text, "utf-8")
    return load_config_file(path)


def test_web_settings_come_from_the_file_and_the_flag_wins(tmp_path: Path) -> None:
    config = config_of(
        tmp_path,
        'web_port = 8080\nweb_host = "127.0.0.1"\nweb_max_sessions = 5\n'
        "web_sessions_per_address = 2\nweb_idle_timeout = 60\nweb_client_memory = 128\n"
        'web_origins = ["https://Example.org/"]\n',
    )
    web = config.web
    assert (web.port, web.host, web.max_sessions, web.sessions_per_address) == (
        8080,
        "127.0.0.1",
        5,
        2,
    )
    assert (web.idle_timeout, web.client_memory, web.origins) == (
        60.0,
        128,
        ("https://example.org",),
    )
    assert web.limits.max_sessions == 5 and web.limits.client_memory_mb == 128
    args = _serve_parser().parse_args(
        ["--web-port", "9090", "--config", str(tmp_path / "server.toml")]
    )
    assert _config(args).web.port == 9090


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("web_port = 70000", "web_port must be an integer 0-65535"),
        ('web_port = "80"', "web_port must be an integer"),
        ("web_max_sessions = 0", "web_max_sessions must be an integer 1-10000"),
        ("web_client_memory = 8", "web_client_memory must be an integer 64-65536"),
        ("web_idle_timeout = 0", "web_idle_timeout must be a number of seconds"),
        ('web_origins = ["example.org"]', "web_origins must be a list of origins"),
        ("web_host = 1", "web_host must be a string"),
        ("web_colour = 1", "unknown settings"),
    ],
)
def test_bad_web_settings_are_refused_with_the_reason(
    tmp_path: Path, line: str, reason: str
) -> None:
    with pytest.raises(ConfigError, match=reason):
        config_of(tmp_path, line + "\n")
