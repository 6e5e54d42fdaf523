"""Where a hosted session's memory goes: its pages against the launcher's, one by one.

    sudo uv run python bench/pages.py [--sessions 3]

Starts a ``gbmj-server --ssh-port`` on loopback (bench/hostedkit.py), takes N guests
to the lobby, and compares the writable pages of the last session's client with its
launcher's (/proc/PID/pagemap: the physical page behind each address, which only root
may read): shared (still the launcher's page), copied (the launcher has a page there,
the session its own copy) or new (the launcher has none there). Each copied page is then
compared word by word with the launcher's (/proc/PID/mem): how many 8-byte words differ,
and whether they differ by small amounts only (counts moved: reference counts) or hold
new values. Prints one figure a line; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostedkit
import ssh as ssh_bench

PAGE = 4096
WORDS = PAGE // 8
PFN_MASK = (1 << 55) - 1
SMALL = 1000  # a word that moved by less than this is taken for a count


def writable(pid: int) -> list[tuple[int, int, str]]:
    """The writable mappings of ``pid``: (start, end, what: [heap], [anon] or a file)."""
    found = []
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        words = line.split()
        if "w" not in words[1]:
            continue
        start, end = (int(x, 16) for x in words[0].split("-"))
        found.append((start, end, words[5] if len(words) > 5 else "[anon]"))
    return found


def frames(pid: int, start: int, end: int) -> dict[int, int]:
    """address -> physical frame, of the pages present in [start, end)."""
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        pagemap.seek(start // PAGE * 8)
        data = pagemap.read((end - start) // PAGE * 8)
    present = {}
    for i, (entry,) in enumerate(struct.iter_unpack("<Q", data)):
        if entry >> 63:
            present[start + i * PAGE] = entry & PFN_MASK
    return present


def difference(child: int, launcher: int, address: int) -> str:
    """How a copied page differs from the launcher's: a class of the words changed."""
    with open(f"/proc/{child}/mem", "rb", buffering=0) as mine:
        mine.seek(address)
        ours = struct.unpack(f"<{WORDS}Q", mine.read(PAGE))
    with open(f"/proc/{launcher}/mem", "rb", buffering=0) as theirs:
        theirs.seek(address)
        its = struct.unpack(f"<{WORDS}Q", theirs.read(PAGE))
    changed = [(a, b) for a, b in zip(ours, its, strict=True) if a != b]
    if not changed:
        return "the same, word for word"
    counts = all(abs(a - b) < SMALL for a, b in changed)
    many = "1-4" if len(changed) <= 4 else "5-64" if len(changed) <= 64 else "over 64"
    return f"{many} words, {'counts only' if counts else 'new values'}"


def compare(child: int, launcher: int) -> None:
    kinds: collections.Counter[str] = collections.Counter()
    where: collections.Counter[tuple[str, str]] = collections.Counter()
    copies: collections.Counter[str] = collections.Counter()
    for start, end, name in writable(child):
        ours, its = frames(child, start, end), frames(launcher, start, end)
        if ours and not any(ours.values()):
            raise SystemExit("no physical pages shown: run as root (pagemap hides them)")
        region = name if name.startswith("[") else "files' data"
        for address, frame in ours.items():
            kind = "new" if address not in its else "shared" if its[address] == frame else "copied"
            kinds[kind] += 1
            where[region, kind] += 1
            if kind == "copied" and region in ("[heap]", "[anon]"):
                copies[difference(child, launcher, address)] += 1
    mib = PAGE / 2**20
    for kind in ("shared", "copied", "new"):
        print(f"session pages {kind} MiB: {kinds[kind] * mib:.1f}")
    for (region, kind), count in sorted(where.items()):
        print(f"  {region} {kind} MiB: {count * mib:.1f}")
    total = sum(copies.values()) or 1
    print("copied pages of the heap and Python's memory, against the launcher's:")
    for what, count in copies.most_common():
        print(f"  {what}: {count * mib:.1f} MiB ({100 * count / total:.0f}%)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=3, help="SSH sessions at the lobby")
    args = parser.parse_args()
    extra = 'ssh_unknown_users = "guest"\n'
    with (
        tempfile.TemporaryDirectory() as tmp,
        hostedkit.host(Path(tmp), "ssh", args.sessions, extra) as host,
    ):

        async def measure() -> None:
            connections = []
            for i in range(args.sessions):
                conn, _ = await ssh_bench.to_lobby(host.door_port, i)
                connections.append(conn)
            hostedkit.settle(host, args.sessions)
            await asyncio.sleep(2)  # the lobby drawn and quiet
            compare(host.sessions()[-1], host.launcher())
            for conn in connections:
                conn.close()

        asyncio.run(measure())


if __name__ == "__main__":
    main()
