"""What a host installs: ``--version`` from the package metadata, the container image's
command (run here outside docker: this machine has no docker engine) and the systemd
unit in the repository."""

from __future__ import annotations

import configparser
import importlib.metadata
import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest

from gbmj_server.config import load_config_file

ROOT = Path(__file__).resolve().parents[2]
VERSION = importlib.metadata.version("gbmj")


@pytest.mark.parametrize(
    ("module", "program"), [("gbmj_tui", "gbmj"), ("gbmj_server", "gbmj-server")]
)
@pytest.mark.slow
def test_version_comes_from_the_package_metadata(module: str, program: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", module, "--version"], capture_output=True, text=True, timeout=60
    )
    assert (run.returncode, run.stdout) == (0, f"{program} {VERSION}\n")


def _final_stage(dockerfile: str) -> list[tuple[str, str]]:
    """The instructions of the Dockerfile's last stage, as (INSTRUCTION, arguments)."""
    joined = re.sub(r"\\\n", " ", dockerfile)
    lines = [line.strip() for line in joined.splitlines()]
    steps = [tuple(line.split(None, 1)) for line in lines if line and not line.startswith("#")]
    last = max(i for i, step in enumerate(steps) if step[0] == "FROM")
    return [(word.upper(), rest) for word, rest in steps[last:]]


@pytest.mark.slow
def test_the_images_command_runs_outside_docker(tmp_path: Path) -> None:
    steps = _final_stage((ROOT / "Dockerfile").read_text())
    first = {word: rest for word, rest in reversed(steps)}
    assert first["USER"] == "gbmj" and "--uid 10001" in first["RUN"]  # not root
    copies = dict(
        reversed(rest.split()) for word, rest in steps if word == "COPY" and "--from" not in rest
    )
    entrypoint, command = json.loads(first["ENTRYPOINT"]), json.loads(first["CMD"])
    assert entrypoint == ["gbmj-server"] and command[0] == "--config"
    config_file = ROOT / copies[command[1]]  # the file the image holds at that path
    config = load_config_file(config_file)
    assert config.host == "0.0.0.0"
    volume = PurePosixPath(first["VOLUME"])
    assert PurePosixPath(str(config.db_path)).parent == volume  # the data on the volume
    exposed = {int(port) for port in first["EXPOSE"].split()}
    assert {config.port, config.ssh.port, config.metrics_port} <= exposed
    # The image's command with the host's overrides this test needs: a free loopback
    # port each and a database in tmp_path (the command line wins over the file).
    program = Path(sys.executable).with_name(entrypoint[0])
    overrides = ["--db", str(tmp_path / "gbmj-server.sqlite3"), "--host", "127.0.0.1"]
    overrides += ["--port", "0", "--ssh-port", "0", "--metrics-host", "127.0.0.1"]
    overrides += ["--metrics-port", "0"]
    proc = subprocess.Popen(
        [str(program), "--config", str(config_file), *overrides],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert proc.stdout is not None
        printed = [proc.stdout.readline() for _ in range(4)]
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert printed[0].startswith("listening on 127.0.0.1:")
    assert printed[2].startswith("tls: certificate SHA256:")  # the game port serves TLS
    assert printed[3].startswith("ssh: listening on 127.0.0.1:")
    assert proc.returncode == 0, err
    assert json.loads(err.splitlines()[0])["message"] == "signal 15: stopping"  # json


def test_the_systemd_unit_runs_the_server_as_its_own_user() -> None:
    path = ROOT / "deploy" / "gbmj-server.service"
    unit = configparser.ConfigParser(interpolation=None, strict=False)
    unit.optionxform = str
    unit.read_string(path.read_text())
    service = unit["Service"]
    program, *arguments = service["ExecStart"].split()
    assert program.endswith("/.venv/bin/gbmj-server") and arguments[0] == "--config"
    assert service["User"] == "gbmj" and service["KillSignal"] == "SIGTERM"
    assert service["ReadWritePaths"] == f"/var/lib/{service['StateDirectory']}"
    assert "deploy/gbmj-server.service" in (ROOT / "docs" / "hosting.md").read_text()
    if shutil.which("systemd-analyze") is None:
        return  # the file's syntax is checked above; systemd's own check where it runs
    verify = subprocess.run(
        ["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60
    )
    # Only the program is missing here (it is installed in /opt/gbmj on a host).
    complaints = [
        line for line in verify.stderr.splitlines() if line and "is not executable" not in line
    ]
    assert complaints == []


def test_the_door_unit_runs_a_door_its_command_line_reads() -> None:
    """deploy/gbmj-door.service: the doors as the service user, with a command line
    ``gbmj-server door`` reads (the secret in the settings file, not on it)."""
    from gbmj_server.cli import _door_parser

    path = ROOT / "deploy" / "gbmj-door.service"
    unit = configparser.ConfigParser(interpolation=None, strict=False)
    unit.optionxform = str
    unit.read_string(path.read_text())
    service = unit["Service"]
    program, command, *arguments = service["ExecStart"].replace("\\\n", " ").split()
    assert program.endswith("/.venv/bin/gbmj-server") and command == "door"
    args = _door_parser().parse_args(arguments)
    assert args.config is not None and args.server and args.fingerprint
    assert not any("secret" in a for a in arguments)  # ps shows the command line
    assert service["User"] == "gbmj" and service["KillSignal"] == "SIGTERM"
    assert "deploy/gbmj-door.service" in (ROOT / "docs" / "hosting.md").read_text()
    if shutil.which("systemd-analyze") is None:
        return
    verify = subprocess.run(
        ["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60
    )
    complaints = [
        line for line in verify.stderr.splitlines() if line and "is not executable" not in line
    ]
    assert complaints == []
