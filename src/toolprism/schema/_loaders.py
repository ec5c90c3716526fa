"""Catalog loaders: OpenAI ``tools`` lists, MCP ``tools/list`` replies, BFCL function docs and
ToolSchemaSpace ``tools.json`` into an :class:`ActionSpace`; :func:`load_catalog` detects the format.
How each tool and its parameter schemas are read (and what cannot be carried over) is described
in ``_tools``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolprism.errors import ConfigError
from toolprism.schema._space import ActionSpace
from toolprism.schema._tools import _NAME_CHARS, MAX_DEPTH, Source, parse_tools, too_deep


def load_tools(data: Any, *, name: str, source: Source, group: str = "") -> ActionSpace:
    """Parse a tool catalog, collecting every problem before failing.

    Raises:
        ConfigError: one line per problem (tool, parameter, reason).
    """
    notes: list[str] = []
    return ActionSpace(name, parse_tools(data, name=name, source=source, group=group, notes=notes), tuple(notes))


def load_catalog(
    path: str | Path, *, name: str | None = None, entry: str | int | None = None, group: str | None = None
) -> ActionSpace:
    """Load a catalog file, detecting its format: an OpenAI ``tools`` list, an MCP ``tools/list``
    reply, BFCL function docs (JSON or JSON lines, entries with a ``function`` list or one doc per
    line), or a ToolSchemaSpace ``tools.json``.

    Args:
        path: the file.
        name: the action space's name (default: the file name up to its first dot, made tool-safe).
        entry: BFCL entry files only: load one entry (its ``id`` or 0-based line index) instead of
            the union of all entries' functions.
        group: ToolSchemaSpace only: load one domain (tool group) with its plain tool names.
            Without it every tool is named ``<group>__<name>`` when names repeat across groups.

    Raises:
        ConfigError: unreadable file, unknown format, or any problem in the catalog.
    """
    path = Path(path)
    name = name or _NAME_CHARS.sub("_", path.name.split(".")[0]) or "catalog"
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}", what="catalog") from None
    text = _decode(raw, path)
    if not text.strip():
        raise ConfigError(f"{path}: the file is empty", what="catalog")
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as e:
            raise ConfigError(f"{path}: neither JSON nor JSON lines ({e})", what="catalog") from None
        except RecursionError:
            raise ConfigError(f"{path}: JSON nested too deeply to read", what="catalog") from None
    except RecursionError:
        raise ConfigError(f"{path}: JSON nested too deeply to read", what="catalog") from None
    space = load_data(data, name=name, entry=entry, group=group, where=str(path))
    if not space.operations:
        raise ConfigError(f"{path}: the catalog has no tools", what="catalog")
    return space


def _decode(raw: bytes, path: Path) -> str:
    """A catalog file's text: UTF-8 (a byte-order mark allowed), or UTF-16/32 with a byte-order mark
    (RFC 8259 asks for UTF-8; other encodings are refused, naming the first bad byte)."""
    encoding = json.detect_encoding(raw) if raw[:4].startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8-sig"
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as e:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {e.start}); "
            "JSON catalogs are UTF-8: convert it (e.g. iconv -f latin1 -t utf-8)",
            what="catalog",
        ) from None


def load_data(
    data: Any, *, name: str, entry: str | int | None = None, group: str | None = None, where: str = "catalog"
) -> ActionSpace:
    """:func:`load_catalog` on already parsed JSON (a JSON-lines file is the list of its lines)."""
    if too_deep(data, MAX_DEPTH + 4):  # + the envelope: result, tools, function, parameters
        raise ConfigError(f"{where}: nested more than {MAX_DEPTH} levels deep", what="catalog")
    if isinstance(data, Mapping) and isinstance(data.get("result"), Mapping):
        data = data["result"]
    if isinstance(data, Mapping) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if isinstance(data, Mapping) and (isinstance(data.get("function"), list) or "parameters" in data):
        data = [data]  # one BFCL entry, or one function doc
    if not isinstance(data, list) or not all(isinstance(e, Mapping) for e in data):
        raise ConfigError(f"{where}: not a tool catalog (expected a list of objects)", what="catalog")
    first = data[0] if data else {}
    if entry is not None and "function" not in first:
        raise ConfigError(f"{where}: entry= applies to BFCL entry files only", what="catalog")
    if group is not None and "uid" not in first:
        raise ConfigError(f"{where}: group= applies to ToolSchemaSpace catalogs only", what="catalog")
    if isinstance(first.get("function"), list):
        return _load_bfcl_entries(data, name, entry, where)
    if "id" in first and "involved_classes" in first:
        raise ConfigError(
            f"{where}: BFCL multi-turn entries carry no function docs; load the files under "
            f"multi_turn_func_doc/ for their involved classes ({', '.join(first['involved_classes'])})",
            what="catalog",
        )
    if first.get("type") == "function" and isinstance(first.get("function"), Mapping):
        return load_tools(data, name=name, source="openai")
    if "inputSchema" in first:
        return load_tools(data, name=name, source="mcp")
    if "uid" in first and "group" in first:
        return _load_toolschemaspace(data, name, group, where)
    if "name" in first and "parameters" in first or not data:
        return load_tools(data, name=name, source="bfcl")
    raise ConfigError(f"{where}: unrecognised catalog format (keys of the first entry: {sorted(first)})")


def _load_bfcl_entries(data: list, name: str, entry: str | int | None, where: str) -> ActionSpace:
    if entry is not None:
        chosen = [e for i, e in enumerate(data) if entry in (i, e.get("id"))]
        if not chosen:
            raise ConfigError(f"{where}: no entry {entry!r}", what="catalog")
        return load_tools(
            chosen[0]["function"], name=_NAME_CHARS.sub("_", str(chosen[0].get("id", name))), source="bfcl"
        )
    docs: dict[str, tuple[Any, str]] = {}
    problems = []
    for i, e in enumerate(data):
        for doc in e.get("function", []):
            key = doc.get("name") if isinstance(doc, Mapping) else None
            if key in docs and docs[key][0] != doc:
                problems.append(
                    f"tool {key!r}: defined differently in entries {docs[key][1]!r} and {e.get('id', i)!r}; "
                    "load one entry with entry="
                )
            docs.setdefault(key, (doc, e.get("id", i)))
    if problems:
        raise ConfigError(problems, what=f"bfcl catalog {name!r}")
    return load_tools([doc for doc, _ in docs.values()], name=name, source="bfcl")


def _load_toolschemaspace(data: list, name: str, group: str | None, where: str) -> ActionSpace:
    if group is not None:
        chosen = [t for t in data if t.get("group") == group]
        if not chosen:
            groups = sorted({str(t.get("group")) for t in data})
            raise ConfigError(f"{where}: no group {group!r} (groups: {', '.join(groups)})", what="catalog")
        return load_tools(chosen, name=name, source="toolschemaspace")
    names = [t.get("name") for t in data]
    if len(set(names)) != len(names):
        data = [{**t, "name": f"{t.get('group')}__{t.get('name')}"} for t in data]
    return load_tools(data, name=name, source="toolschemaspace")
