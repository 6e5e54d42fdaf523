"""``bot_workers`` from the config file."""

from __future__ import annotations

from pathlib import Path

import pytest

from gbmj_server.config import ConfigError, load_config_file


def test_bot_workers_from_the_file_and_bad_values_refused(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text("bot_workers = 0\n")
    assert load_config_file(path).bot_workers == 0
    for bad in ("-1", "65", "true", "1.5"):
        path.write_text(f"bot_workers = {bad}\n")
        with pytest.raises(ConfigError, match="bot_workers"):
            load_config_file(path)
