"""The server's log: one line a record, as text or JSON (``log_format``), to standard
error or a file (``log_file``), with no secrets.

``event(name, **fields)`` logs one meaningful event with its ids as fields, named the
same everywhere: ``connection``, ``account``, ``table``, ``match``, ``hand`` (then what
the event says, e.g. ``reason``, ``outcome``, ``coins``)::

    logs.event("hand_ended", table=3, match=12, hand=40, outcome="win")

    2026-12-01T09:51:37.985Z INFO hand_ended table=3 match=12 hand=40 outcome=win
    {"time": "2026-12-01T09:51:37.985Z", "level": "info", "event": "hand_ended",
     "table": 3, "match": 12, "hand": 40, "outcome": "win"}        (on one line)

Any other record (``logging.getLogger(__name__).info(...)``) is a line too, with its
logger and message. A value another person chose (a name, a chat line) cannot break
the line or forge one: control characters and line separators are escaped in both
formats, and a text value that is not a plain word is written as a JSON string. In
text, a traceback follows its record on lines starting ``  | ``.

Secrets are kept out by the handler's filter (``Redact``), whatever the caller passes:
fields named like a password, token or secret are written ``***``; protocol messages
passed as arguments are written as their type and id only (a ``login`` carries a
password); and ``password=...``, ``token: ...`` and the like are masked in messages
and tracebacks.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from logging.handlers import WatchedFileHandler
from pathlib import Path
from typing import Any

from gbmj_server.config import ConfigError, ServerConfig
from protocol.schema import Record

EVENTS = logging.getLogger("gbmj.events")
MASK = "***"
# The keys every JSON line may have; an event's fields cannot take them.
RESERVED = frozenset({"time", "level", "event", "logger", "message", "error"})

_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}\Z")
_BARE = re.compile(r"[A-Za-z0-9_.:/@+\-]+\Z")  # a text value written without quotes
_SECRET_KEY = re.compile(
    r"(?i)(?:.*(?:password|passwd|token|secret|credential|cookie|authorization).*|old|new)\Z"
)
# ``password='x'``, ``"token": "x"``, ``secret=x`` in free text: the value is masked.
_SECRET_IN_TEXT = re.compile(
    r"""(?ix)
    (\b[\w-]*(?:password|passwd|token|secret)[\w-]*['"]?\s*[=:]\s*)
    ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s,;)}\]]+)
    """
)
# Besides C0 controls (which JSON escapes), what breaks a line or hides text.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def event(name: str, /, *, level: int = logging.INFO, **fields: Any) -> None:
    """Log the event ``name`` with its ``fields`` (ids first, by convention) as one
    line. ``ValueError`` for a name or field that is not a lowercase identifier, or a
    field named like a line's own keys (``time``, ``level``...)."""
    for key in (name, *fields):
        if not _NAME.match(key):
            raise ValueError(f"not an event or field name: {key!r} (lowercase, digits, _)")
    clash = RESERVED.intersection(fields)
    if clash:
        raise ValueError(f"field names taken by the line itself: {', '.join(sorted(clash))}")
    if EVENTS.isEnabledFor(level):
        EVENTS.log(level, name, extra={"gbmj_event": name, "gbmj_fields": fields})


# -- keeping secrets out -------------------------------------------------------------------


def mask_text(text: str) -> str:
    """``text`` with the values after password-, token- and secret-like names masked."""
    return _SECRET_IN_TEXT.sub(lambda found: found.group(1) + MASK, text)


def _masked(value: Any, key: str | None = None, depth: int = 0) -> Any:
    if key is not None and _SECRET_KEY.match(key):
        return MASK
    if isinstance(value, Record):  # a protocol message: its type and id, never its fields
        return _Opaque(value)
    if isinstance(value, Mapping) and depth < 3:
        return {k: _masked(v, str(k), depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple) and depth < 3:
        return type(value)(_masked(v, None, depth + 1) for v in value)
    return value


class _Opaque:
    """Stands in for a protocol message in a log record."""

    def __init__(self, record: Record) -> None:
        kind = record.TAG or type(record).__name__
        ident = getattr(record, "id", None)
        self.text = f"<{kind} id={ident}>" if ident is not None else f"<{kind}>"

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


class Redact(logging.Filter):
    """Masks secrets in a record's arguments, fields and message before any handler
    formats it (a filter on the handler: it sees every logger's records)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, Mapping):
            record.args = _masked(record.args)
        elif record.args:
            record.args = tuple(_masked(a) for a in record.args)
        fields = getattr(record, "gbmj_fields", None)
        if fields is not None:
            record.gbmj_fields = {k: _masked(v, k) for k, v in fields.items()}
        try:
            message = record.getMessage()
        except Exception:  # arguments that do not fit: shown as the bare template
            message = f"{record.msg} (log arguments that do not fit the message)"
        record.msg = mask_text(message)
        record.args = None
        return True


# -- the two formats -----------------------------------------------------------------------


def _json(value: Any) -> str:
    """One JSON value on one line, readable (CJK kept), line separators escaped."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return _UNSAFE.sub(lambda c: f"\\u{ord(c.group()):04x}", text)


def _scalar(value: Any) -> Any:
    """A field's value as JSON can hold it (ids, counts, words; anything else as text)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _time(record: logging.LogRecord) -> str:
    moment = datetime.fromtimestamp(record.created, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TextFormatter(logging.Formatter):
    """``TIME LEVEL event key=value ...`` or ``TIME LEVEL logger: message``."""

    def format(self, record: logging.LogRecord) -> str:
        head = f"{_time(record)} {record.levelname}"
        name = getattr(record, "gbmj_event", None)
        if name is not None:
            fields: dict[str, Any] = getattr(record, "gbmj_fields", {})
            line = " ".join([head, name, *(f"{k}={_text(v)}" for k, v in fields.items())])
        else:
            line = f"{head} {record.name}: {_one_line(record.getMessage())}"
        error = _error(self, record)
        if error:
            line += "".join(f"\n  | {_one_line(part)}" for part in error.splitlines())
        return line


def _text(value: Any) -> str:
    value = _scalar(value)
    if isinstance(value, str) and _BARE.match(value):
        return value
    return _json(value)


def _one_line(text: str) -> str:
    return _UNSAFE.sub(lambda c: f"\\u{ord(c.group()):04x}", text)


def _error(formatter: logging.Formatter, record: logging.LogRecord) -> str:
    """The record's traceback (and stack), masked; empty if it has none."""
    parts = []
    if record.exc_info:
        parts.append(formatter.formatException(record.exc_info))
    if record.stack_info:
        parts.append(formatter.formatStack(record.stack_info))
    return mask_text("\n".join(parts))


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time``, ``level``, then ``event`` and its fields, or
    ``logger`` and ``message``; ``error`` holds a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {"time": _time(record), "level": record.levelname.lower()}
        name = getattr(record, "gbmj_event", None)
        if name is not None:
            line["event"] = name
            fields = getattr(record, "gbmj_fields", {})
            line.update((k, _scalar(v)) for k, v in fields.items())
        else:
            line["logger"] = record.name
            line["message"] = record.getMessage()
        error = _error(self, record)
        if error:
            line["error"] = error
        return _json(line)


# -- setting it up -------------------------------------------------------------------------


def setup(config: ServerConfig) -> logging.Handler:
    """Send every record at ``log_level`` or above to the log, in ``log_format``; returns
    the handler (the one this module installed before is replaced). ``ConfigError`` if
    the log file cannot be opened."""
    if config.log_file is None:
        handler: logging.Handler = logging.StreamHandler(sys.stderr)
    else:
        handler = _file_handler(config.log_file)
    handler.setFormatter(JsonFormatter() if config.log_format == "json" else TextFormatter())
    handler.addFilter(Redact())
    handler.set_name("gbmj")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "gbmj"]:
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    root.setLevel(config.log_level.upper())
    return handler


def _file_handler(path: Path) -> logging.Handler:
    """Appends to ``path`` (made readable by the owner only: it names players and their
    addresses); reopened if logrotate moves it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        return WatchedFileHandler(path, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot open the log file {path}: {exc.strerror or exc}") from None
