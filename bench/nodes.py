"""Several nodes on one PostgreSQL: the capacity workload over one node, then over two,
each node pinned to a core, in one run; the lobby's propagation between the nodes; the
takeover of a node's matches after a SIGKILL; settlements racing from two nodes.

    uv run python bench/nodes.py [--players 400 --lobby 400 --seconds 20] [--pg URL]

The workload is ``bench/capacity.py``'s (human-paced players, four to a table, tables
breaking up and re-forming; lobby clients watching pages), its groups and lobby clients
spread over the nodes. PostgreSQL is started for the run in a temporary folder (as the
tests start theirs: Debian's ``postgresql``), unless ``--pg`` names a server to use (a
fresh database is made in it for each part). On two cores the nodes take one core each
and the clients and PostgreSQL share both: the figures of the two-node part are for
the nodes' code, not for a machine of two nodes.

Prints one figure a line, for one node then two: ``players``, ``latency ms p50`` /
``p99``, ``cpu % node <name>``; then ``lobby propagation ms p50`` / ``p99`` (a table
made on node a, until node b lists it), ``takeover s`` (node a SIGKILLed: until node b
holds every running match a held) and the settlements racing from two nodes.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import trio

BENCH = Path(__file__).resolve().parent
# The tests' folder first: its ``storage`` package (the local PostgreSQL), not
# bench/storage.py.
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests"))

# (before capacity puts bench/ first in the path)
from storage.pg import PgServer, local_postgres  # noqa: E402, I001

import capacity  # noqa: E402
from capacity import PAGE, Stats, lobby_client, open_client, table_group  # noqa: E402
from loadkit import Pinning, cpu_seconds, percentile, start_process  # noqa: E402

CONFIG = (
    'node = "{node}"\nlease_time = {lease}\nlog_level = "warning"\ninsecure = true\n'
    'table_linger = 0\nhand_pause = 5.0\n[limits]\ntrusted = ["127.0.0.1"]\n'
    # the propagation probe asks node b for its list every 10 ms
    "request_rate = 1000.0\nrequest_burst = 1000\n"
)


def _bench_storage() -> Any:
    """``bench/storage.py`` (its name is taken by the tests' package here)."""
    spec = importlib.util.spec_from_file_location("bench_storage", BENCH / "storage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def start_node(url: str, name: str, core: set[int], lease: float, tmp: Path) -> tuple[Any, int]:
    config = tmp / f"{name}.toml"
    config.write_text(CONFIG.format(node=name, lease=lease))
    command = [sys.executable, "-m", "gbmj_server", "--host", "127.0.0.1", "--port", "0"]
    command += ["--db", url, "--config", str(config)]
    pinning = Pinning(pin=False)
    pinning.server = core
    return start_process(command, pinning, stderr=open(tmp / f"{name}.log", "w"))


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def load(
    ports: list[int], args: argparse.Namespace, stats: Stats, nursery: trio.Nursery
) -> None:
    """The capacity workload, its groups and lobby clients spread over ``ports``."""
    tables = args.players // 4
    pages = max(1, -(-tables // PAGE))
    seated, watching = [0], [0]
    for t in range(tables):
        port = ports[t % len(ports)]
        nursery.start_soon(table_group, port, stats, args.table_life, t, seated, nursery)
        await trio.sleep(0.004)
    for i in range(args.lobby):
        port = ports[i % len(ports)]
        nursery.start_soon(lobby_client, port, stats, i, pages, watching, nursery)
        await trio.sleep(0.001)
    while seated[0] < tables or watching[0] < args.lobby:
        await trio.sleep(0.5)


async def propagation(port_a: int, port_b: int, probes: int, nursery: trio.Nursery) -> list[float]:
    """Tables made on node a, one a second: seconds until node b's list holds each (to
    within the 10 ms between two looks)."""
    maker = await open_client(port_a, nursery)
    reader = await open_client(port_b, nursery)
    delays = []
    total = 0
    for _ in range(probes):
        reply = await maker.request("create_table", settings={**capacity.SETTINGS, "name": "p"})
        made, table_id = time.perf_counter(), reply["table"]["table_id"]
        while True:  # the last page of node b's list (the newest tables), every 10 ms
            page = await reader.request("list_tables", offset=max(0, (total - 1) // PAGE * PAGE))
            if page["type"] != "table_list":  # the list shrank under the offset: again
                total = 0
                continue
            if any(t["table_id"] == table_id for t in page["tables"]):
                break
            total = page["total"]
            await trio.sleep(0.01)
        delays.append(time.perf_counter() - made)
        await maker.request("leave_table", table_id=table_id)
        await trio.sleep(random.uniform(0.5, 1.0))
    return delays


def held_by(url: str, node: str) -> int:
    """Running matches whose lease ``node`` holds."""
    with psycopg.connect(url) as db:
        row = db.execute(
            b"SELECT count(*) FROM table_lease l JOIN match m ON m.table_id = l.table_id "
            b"WHERE m.ended_at IS NULL AND l.node = %s",
            (node,),
        ).fetchone()
    return int(row[0]) if row else 0


async def part(
    url: str, names: list[str], cores: list[set[int]], args: argparse.Namespace, tmp: Path
) -> dict[str, float]:
    nodes = [start_node(url, n, c, args.lease, tmp) for n, c in zip(names, cores, strict=True)]
    ports = [port for _, port in nodes]
    stats = Stats()
    figures: dict[str, float] = {"players": args.players, "lobby clients": args.lobby}
    try:
        async with trio.open_nursery() as nursery:
            t0 = time.perf_counter()
            await load(ports, args, stats, nursery)
            print(f"  set up in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            await trio.sleep(args.warmup)
            stats.measuring = True
            cpu0 = [cpu_seconds(proc.pid) for proc, _ in nodes]
            t0 = time.perf_counter()
            if len(nodes) == 2:
                delays = await propagation(ports[0], ports[1], int(args.seconds), nursery)
                figures["lobby propagation ms p50"] = percentile(delays, 0.5) * 1000
                figures["lobby propagation ms p99"] = percentile(delays, 0.99) * 1000
            await trio.sleep(max(0.0, args.seconds - (time.perf_counter() - t0)))
            stats.measuring = False
            elapsed = time.perf_counter() - t0
            for (proc, _), name, before in zip(nodes, names, cpu0, strict=True):
                figures[f"cpu % node {name}"] = (cpu_seconds(proc.pid) - before) / elapsed * 100
            nursery.cancel_scope.cancel()
        figures["latency ms p50"] = percentile(stats.latencies, 0.5) * 1000
        figures["latency ms p99"] = percentile(stats.latencies, 0.99) * 1000
        figures["discards measured"] = len(stats.latencies)
        if len(nodes) == 2:  # node a dies; node b takes its matches over
            running = held_by(url, names[0])
            nodes[0][0].send_signal(signal.SIGKILL)
            nodes[0][0].wait()
            killed = time.perf_counter()
            while held_by(url, names[0]) and time.perf_counter() - killed < 10 * args.lease:
                await trio.sleep(0.05)
            figures["matches of the killed node"] = running
            figures["left behind"] = held_by(url, names[0])
            figures[f"takeover s (lease {args.lease:g} s)"] = time.perf_counter() - killed
    finally:
        for proc, _ in nodes:
            stop(proc)
    if stats.errors:
        print(f"  errors: {stats.errors}", file=sys.stderr)
    return figures


@contextlib.contextmanager
def databases(url: str | None) -> Iterator[PgServer | str]:
    if url is not None:
        yield url
        return
    with local_postgres() as server:
        yield server


def new_database(where: PgServer | str, name: str) -> str:
    if isinstance(where, PgServer):
        return where.new_database()
    with psycopg.connect(where, autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"'.encode())
    return psycopg.conninfo.make_conninfo(where, dbname=name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=400, help="seated players (4 a table)")
    parser.add_argument("--lobby", type=int, default=400, help="lobby clients that watch")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured time a part")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--table-life", type=float, default=120.0, help="mean s a table lasts")
    parser.add_argument("--lease", type=float, default=10.0, help="the nodes' lease_time")
    parser.add_argument("--settlements", type=int, default=1000)
    parser.add_argument("--pg", help="a PostgreSQL server to use (default: one of its own)")
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    gc.disable()  # the clients' collector pauses would count as the nodes' latency
    pinning = Pinning()
    cores = sorted(pinning.all)
    one, two = [{cores[0]}], [{cores[0]}, {cores[-1]}]
    stamp = f"{time.time_ns() % 10**9}"
    with databases(args.pg) as where, tempfile.TemporaryDirectory() as tmp:
        for label, names, pins in (("one node", ["a"], one), ("two nodes", ["a", "b"], two)):
            print(f"{label}: cores {', '.join(str(min(c)) for c in pins)}", flush=True)
            url = new_database(where, f"gbmj_bench_{label[:3]}_{stamp}")
            figures = trio.run(part, url, names, pins, args, Path(tmp))
            for name, value in figures.items():
                shown = f"{value:.2f}" if isinstance(value, float) else f"{value}"
                print(f"  {name}: {shown}", flush=True)
        print("settlements racing from two nodes (two stores, one database):", flush=True)
        _bench_storage().run(new_database(where, f"gbmj_bench_ledger_{stamp}"), args.settlements, 2)


if __name__ == "__main__":
    main()
