"""Where a hosted session's memory goes: its pages against the launcher's, one by one.

    sudo uv run python bench/pages.py [--sessions 3]

Starts a ``gbmj-server --ssh-port`` on loopback (bench/hostedkit.py), takes N guests
to the lobby, and compares the writable pages of the last session's client with its
launcher's (/proc/PID/pagemap: the physical page behind each address, which only root
may read): shared (still the launcher's page), copied (the launcher has a page there,
the session its own copy) or new (the launcher has none there). Each copied page is then
compared word by word with the launcher's (/proc/PID/mem): how many 8-byte words differ,
and whether they differ by small amounts only (counts moved: reference counts) or hold
new values. With ``--objects`` the launcher also writes where its objects lie
(``write_object_map`` in gbmj_server/launcher.py, before its fork; writing it moves the
launcher's memory a little) and each kind of copied page is told by the objects on it
(KiB of each type) and each changed word by the place in its object: a reference count,
the collector's links, the object's body, or no object known (the arrays behind
dictionaries, lists and sets, free memory). Prints one figure a line; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import collections
import os
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostedkit
import ssh as ssh_bench

from gbmj_server.launcher import OBJECT_MAP

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


def read_page(pid: int, address: int) -> tuple[int, ...]:
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        mem.seek(address)
        return struct.unpack(f"<{WORDS}Q", mem.read(PAGE))


def objects(child: int, launcher: int, path: Path) -> None:
    """The copied pages of Python's memory told by the launcher's objects on them."""
    rows = []  # (start with the collector's links, address, end, type)
    for line in path.read_text().splitlines():
        address, size, tracked, kind = line.split(" ", 3)
        start = int(address) - 16 * int(tracked)
        rows.append((start, int(address), int(address) + max(int(size), 16), kind))
    rows.sort()
    starts = [row[0] for row in rows]
    held: collections.Counter[tuple[str, str]] = collections.Counter()
    words: collections.Counter[str] = collections.Counter()
    for start, end, name in writable(child):
        if name not in ("[heap]", "[anon]"):
            continue
        ours, its = frames(child, start, end), frames(launcher, start, end)
        for page, frame in ours.items():
            if page not in its or its[page] == frame:
                continue
            how = difference(child, launcher, page)
            kind = "the same word for word" if how.startswith("the same") else how.split(", ")[-1]
            first = bisect.bisect_left(starts, page - 4 * PAGE)
            for low, _, high, what in rows[first : bisect.bisect_left(starts, page + PAGE)]:
                held[kind, what] += max(0, min(high, page + PAGE) - max(low, page))
            mine, theirs = read_page(child, page), read_page(launcher, page)
            for i in (i for i in range(WORDS) if mine[i] != theirs[i]):
                at = page + 8 * i
                j = bisect.bisect_right(starts, at) - 1
                if j < 0 or not rows[j][0] <= at < rows[j][2]:
                    words["no object known"] += 1
                    continue
                offset = at - rows[j][1]
                words[
                    "the collector's links"
                    if offset < 0
                    else "a reference count"
                    if offset == 0
                    else "the body"
                ] += 1
    for kind in ("the same word for word", "counts only", "new values"):
        mine = {what: size for (k, what), size in held.items() if k == kind}
        print(f"objects on copied pages, {kind}: {sum(mine.values()) / 2**20:.1f} MiB")
        for what, size in collections.Counter(mine).most_common(8):
            print(f"  {what} KiB: {size / 1024:.0f}")
    print("words changed on copied pages, by place:")
    for place, count in words.most_common():
        print(f"  {place}: {count}")


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
    parser.add_argument("--objects", action="store_true", help="the objects on copied pages")
    args = parser.parse_args()
    extra = 'ssh_unknown_users = "guest"\n'
    with tempfile.TemporaryDirectory() as tmp:
        object_map = Path(tmp) / "objects.txt"
        if args.objects:
            os.environ[OBJECT_MAP] = str(object_map)  # the server's, then its launcher's
        with hostedkit.host(Path(tmp), "ssh", args.sessions, extra) as host:
            run(host, args.sessions, object_map if args.objects else None)


def run(host: hostedkit.Host, sessions: int, object_map: Path | None) -> None:
    async def measure() -> None:
        connections = []
        for i in range(sessions):
            conn, _ = await ssh_bench.to_lobby(host.door_port, i)
            connections.append(conn)
        hostedkit.settle(host, sessions)
        await asyncio.sleep(2)  # the lobby drawn and quiet
        compare(host.sessions()[-1], host.launcher())
        if object_map is not None:
            objects(host.sessions()[-1], host.launcher(), object_map)
        for conn in connections:
            conn.close()

    asyncio.run(measure())


if __name__ == "__main__":
    main()
