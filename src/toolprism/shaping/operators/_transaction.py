"""``transaction``: every call becomes begin / set / commit (Action-Space Shaping, cross-call protocols).

Two constructions, chosen by ``setters``:

- ``setters=tool`` (the paper's, ToolSchemaSpace ``toolschema/operators.py`` ``_curry_tools`` and
  ``benchmarks/synthetic/opspecs.py``): every operation with at least two parameters becomes
  ``begin_<op>()``, one ``set_<op>__<param>(txn_id, <param>)`` per parameter and
  ``commit_<op>(txn_id)``, with the paper's descriptions; operations with fewer parameters stay as
  they are. On the paper's catalog this reproduces ``schemas/09_transaction.json`` (727 tools).
- ``setters=shared`` (toolprism's, the default when ``setters`` is not given):

Per operation ``<op>`` below: ``begin_<op>()`` answers ``{"txn_id": "txn_<n>"}``; ``set_<arg>(txn_id,
value)`` (one tool per argument name across all operations) stores one argument; ``commit_<op>(txn_id)``
runs ``<op>`` with the arguments set and closes the transaction. An argument name that operations
declare with different schemas gets ``value: anyOf`` them; the transaction's own operation's schema is
checked when ``set_<arg>`` is decoded. Names go through :func:`tool_name` (shortened past 64 chars).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import jsonschema

from toolprism.errors import ConfigError, RejectionKind
from toolprism.schema import JSON, ToolCall, ToolSpec, canonical_json
from toolprism.shaping._layer import Answer, Batch, Control, Decoded, Forward, Operator, Plan, reject


def tool_name(raw: str) -> str:
    """``raw`` if it is a valid tool name; else its first 57 characters (invalid ones as ``_``), ``_``
    and 6 hex digits of the SHA-256 of ``raw``. Callers check the results stay unique."""
    if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", raw):
        return raw
    return re.sub(r"[^A-Za-z0-9_-]", "_", raw)[:57] + "_" + hashlib.sha256(raw.encode()).hexdigest()[:6]


def closed(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A closed JSON Schema object."""
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def value_check(schema: JSON, value: JSON, what: str) -> None:
    """Validate one argument value against its own schema; the message starts with ``what``.

    Raises:
        RejectedCall: INVALID_ARGUMENTS, listing every violation.
    """
    errors = jsonschema.Draft202012Validator(json.loads(canonical_json(schema))).iter_errors(value)
    problems = [(f"{'.'.join(map(str, e.path))}: " if e.path else "") + e.message for e in errors]
    if problems:
        raise reject(RejectionKind.INVALID_ARGUMENTS, f"{what}: {'; '.join(problems)}")


@dataclass
class _Open:
    tool: str
    written: dict[str, JSON] = field(default_factory=dict)


@dataclass
class TransactionState:
    """Per-episode protocol state: open transactions by id, and the id counter."""

    open: dict[str, _Open] = field(default_factory=dict)
    issued: int = 0


@dataclass(frozen=True)
class Transaction(Operator):
    """Hide each operation behind ``begin_<op>``, ``set_<arg>`` (``setters=shared``) or
    ``set_<op>__<param>`` (``setters=tool``, the paper's), and ``commit_<op>``.

    Rejections: an unknown or already committed ``txn_id``, or one begun for another operation
    (UNKNOWN_TRANSACTION); setting an argument the operation does not take, or a value its schema
    refuses (INVALID_ARGUMENTS); a commit with required arguments unset (INCOMPLETE_TRANSACTION; the
    transaction stays open).

    Raises:
        ConfigError: when binding, if two shown names coincide (after shortening).
    """

    name = "transaction"
    setters: Literal["", "shared", "tool"] = ""

    def spec(self) -> str:
        # ``setters`` is always spelled out: a bare ``transaction`` would read as the paper suite's
        # variant of that name (``setters=tool``) wherever a spec is looked up as a name first
        return f"{self.name}(setters={self.setters or 'shared'})"

    @cached_property
    def _paper(self) -> _PerTool | None:
        return _PerTool(self.below.tools(), self.spec()) if self.setters == "tool" else None

    @cached_property
    def _args(self) -> dict[str, list[JSON]]:
        """Argument name → its distinct schemas across the operations below."""
        found: dict[str, list[JSON]] = {}
        for tool in self.below.tools():
            for arg, schema in tool.parameters.get("properties", {}).items():
                options = found.setdefault(arg, [])
                if schema not in options:
                    options.append(schema)
        return found

    @cached_property
    def _table(self) -> dict[str, tuple[str, str]]:
        """Shown name → (role: begin / set / commit, operation or argument name)."""
        ops = [t.name for t in self.below.tools()]
        entries = [("begin", o) for o in ops] + [("set", a) for a in self._args] + [("commit", o) for o in ops]
        table: dict[str, tuple[str, str]] = {}
        problems = []
        for role, target in entries:
            shown = tool_name(f"{role}_{target}")
            if shown in table:
                problems.append(
                    f"{role} tool of {target!r}: name {shown!r} is already taken (%s tool of %r)" % table[shown]
                )
            table[shown] = (role, target)
        if problems:
            raise ConfigError(problems, what=f"operator {self.spec()}")
        return table

    @cached_property
    def _names(self) -> dict[tuple[str, str], str]:
        return {entry: shown for shown, entry in self._table.items()}

    def tools(self) -> list[ToolSpec]:
        if self._paper is not None:
            return self._paper.tools()
        return [self._show(name, role, target) for name, (role, target) in self._table.items()]

    def _show(self, name: str, role: str, target: str) -> ToolSpec:
        txn = {"type": "string", "description": "the txn_id returned by a begin_ tool"}
        if role == "set":
            users = [t for t in self.below.tools() if target in t.parameters.get("properties", {})]
            options = self._args[target]
            value = options[0] if len(options) == 1 else {"anyOf": options}
            description = f"Set argument '{target}' in an open transaction of: {', '.join(t.name for t in users)}."
            group = users[0].group if len({t.group for t in users}) == 1 else ""
            return ToolSpec(name, description, closed({"txn_id": txn, "value": value}, ["txn_id", "value"]), group)
        tool = self.below.tool(target)
        if role == "commit":
            description = f"Run {target} with the arguments set in transaction txn_id, and close the transaction."
            return ToolSpec(name, description, closed({"txn_id": txn}, ["txn_id"]), tool.group)
        required = tool.parameters.get("required", [])
        sets = [
            f"{self._names['set', a]}{'' if a in required else ' (optional)'}"
            for a in tool.parameters.get("properties", {})
        ]
        description = (
            f"{tool.description} Begins a transaction for {target} and returns its txn_id; set its arguments "
            f"with {', '.join(sets) or 'nothing (it takes none)'}, then call {self._names['commit', target]}(txn_id)."
        )
        return ToolSpec(name, description.strip(), closed({}, []), tool.group)

    def convention(self) -> str:
        if self._paper is not None:
            return (
                "Operations with several arguments are transactions: call begin_<operation>() to get a txn_id, "
                "set each argument with set_<operation>__<argument>(txn_id, <argument>), then call "
                "commit_<operation>(txn_id)."
            )
        return (
            "Every action is a transaction: call begin_<operation>() to get a txn_id, set each argument with "
            "set_<argument>(txn_id, value), then call commit_<operation>(txn_id)."
        )

    def new_state(self) -> TransactionState:
        return TransactionState()

    def decode(self, call: ToolCall, state: TransactionState) -> Decoded:
        if self._paper is not None:
            return self._paper.decode(call, state)
        role, target = self._table[call.name]
        if role == "begin":
            state.issued += 1
            state.open[f"txn_{state.issued}"] = _Open(target)
            return Answer({"txn_id": f"txn_{state.issued}"})
        txn_id = call.arguments["txn_id"]
        if txn_id not in state.open:
            done = txn_id in {f"txn_{i}" for i in range(1, state.issued + 1)}
            raise reject(
                RejectionKind.UNKNOWN_TRANSACTION,
                f"transaction '{txn_id}' is not open ({'already committed' if done else 'never begun'}); "
                "start one with a begin_ tool",
            )
        txn = state.open[txn_id]
        tool = self.below.tool(txn.tool)
        if role == "set":
            properties = tool.parameters.get("properties", {})
            if target not in properties:
                raise reject(
                    RejectionKind.INVALID_ARGUMENTS,
                    f"{txn.tool} (transaction '{txn_id}') has no argument '{target}'; its arguments are: "
                    f"{', '.join(properties) or 'none'}",
                )
            value_check(properties[target], call.arguments["value"], f"invalid value for '{target}' of {txn.tool}")
            txn.written[target] = call.arguments["value"]
            return Answer({"txn_id": txn_id, "set": target})
        if txn.tool != target:
            raise reject(
                RejectionKind.UNKNOWN_TRANSACTION,
                f"transaction '{txn_id}' was begun for {txn.tool}, not {target}; "
                f"commit it with {self._names['commit', txn.tool]}, "
                f"or begin a new one with {self._names['begin', target]}",
            )
        missing = [r for r in tool.parameters.get("required", []) if r not in txn.written]
        if missing:
            raise reject(
                RejectionKind.INCOMPLETE_TRANSACTION,
                f"cannot commit '{txn_id}': {target} needs argument(s) {', '.join(missing)}; set them first with "
                f"{', '.join(self._names['set', m] for m in missing)} (the transaction stays open)",
            )
        del state.open[txn_id]
        return Forward(ToolCall(target, dict(txn.written)))

    def decode_unchecked(self, call: ToolCall, state: TransactionState, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose``: the paper's transaction checks
        (``toolschema/operators.py``, ``SeqDecoder.step``; ``simenv.py``, ``SimEnv.call``), with its
        terse messages. A set or commit on a transaction that is not open (never begun, committed,
        or begun for an operation that does not take the argument or is not the one committed) is
        rejected under both; a value is stored unchecked (a wrong one reaches the native layer);
        a commit with required arguments unset is rejected under ``paper`` (the transaction stays
        open) and runs under ``loose``. ``set_<arg>`` without ``value`` stores nothing.

        Raises:
            RejectedCall: UNKNOWN_TRANSACTION; INCOMPLETE_TRANSACTION (``paper``).
        """
        if self._paper is not None:
            return self._paper.decode_unchecked(call, state, control)
        role, target = self._table[call.name]
        if role == "begin":
            return self.decode(call, state)
        txn_id = call.arguments.get("txn_id")
        txn = state.open.get(txn_id) if isinstance(txn_id, str) else None
        tool = self.below.tool(txn.tool) if txn is not None else None
        takes = tool is not None and (target == txn.tool if role == "commit" else target in _props(tool))
        if not takes:
            hint = ": begin a transaction first and use its txn_id" if role == "set" else ""
            raise reject(RejectionKind.UNKNOWN_TRANSACTION, f"{call.name}({txn_id}){hint}")
        if role == "set":
            if "value" in call.arguments:
                txn.written[target] = call.arguments["value"]
            return Answer({"txn_id": txn_id, "set": target})
        missing = [r for r in tool.parameters.get("required", []) if r not in txn.written]
        if missing and control == "paper":
            raise reject(RejectionKind.INCOMPLETE_TRANSACTION, f"cannot commit: missing required arguments {missing}")
        del state.open[txn_id]
        return Forward(ToolCall(target, dict(txn.written)))

    def encode(self, call: ToolCall) -> Plan:
        if self._paper is not None:
            return (yield from self._paper.encode(call))
        reply = yield ToolCall(self._names["begin", call.name], {})
        txn_id = reply["txn_id"]
        sets = [ToolCall(self._names["set", k], {"txn_id": txn_id, "value": v}) for k, v in call.arguments.items()]
        if sets:
            yield Batch(tuple(sets))
        return (yield ToolCall(self._names["commit", call.name], {"txn_id": txn_id}))


def _txn_schema(tool: str) -> JSON:
    return {"type": "string", "description": f"Transaction id returned by `begin_{tool}`."}


@dataclass(frozen=True)
class _PerTool:
    """The paper's construction over ``lower`` (ToolSchemaSpace ``_curry_tools``; the choice of
    tools, at least two parameters, is ``opspecs.py``'s). Shown names go through :func:`tool_name`.

    Protocol (the paper's hard control, ``simenv.py``): a set or commit on a transaction that is not
    open, or was begun for another operation, is rejected (UNKNOWN_TRANSACTION); a commit with
    required arguments unset is rejected and the transaction stays open (INCOMPLETE_TRANSACTION).
    Deviations: toolprism rejects a set on a committed transaction too (the paper flags it); an
    operation with a parameter called ``txn_id`` is a ConfigError (the paper's setter would clash).
    Under the ``paper`` and ``loose`` controls, :meth:`decode_unchecked` follows the paper's checks.
    """

    lower: list[ToolSpec]
    what: str

    @cached_property
    def table(self) -> dict[str, tuple[str, str, str]]:
        """Shown name → (role: begin / set / commit / plain, operation, parameter or "")."""
        table: dict[str, tuple[str, str, str]] = {}
        problems = []
        for tool in self.lower:
            params = list(tool.parameters.get("properties", {}))
            if len(params) >= 2 and "txn_id" in params:
                problems.append(f"tool {tool.name!r}: its parameter 'txn_id' would clash with the transaction id")
            if len(params) < 2:
                entries = [(tool.name, ("plain", tool.name, ""))]
            else:
                entries = [(f"begin_{tool.name}", ("begin", tool.name, ""))]
                entries += [(f"set_{tool.name}__{p}", ("set", tool.name, p)) for p in params]
                entries.append((f"commit_{tool.name}", ("commit", tool.name, "")))
            for raw, entry in entries:
                shown = tool_name(raw)
                if shown in table:
                    problems.append(f"{entry[0]} tool of {tool.name!r}: name {shown!r} is already taken")
                table[shown] = entry
        if problems:
            raise ConfigError(problems, what=f"operator {self.what}")
        return table

    @cached_property
    def names(self) -> dict[tuple[str, str, str], str]:
        return {entry: shown for shown, entry in self.table.items()}

    def tools(self) -> list[ToolSpec]:
        lower = {t.name: t for t in self.lower}
        out = []
        for shown, (role, op, param) in self.table.items():
            tool = lower[op]
            if role == "plain":
                out.append(tool)
                continue
            commit = self.names["commit", op, ""]
            if role == "begin":
                description = (
                    f"Start a `{op}` transaction. Returns a transaction id. Then set each argument with the "
                    f"set_ functions and finish with `{commit}`. {tool.description}"
                )
                parameters: JSON = {"type": "object", "properties": {}, "required": []}
            elif role == "set":
                schema = tool.parameters["properties"][param]
                about = schema.get("description", "") if isinstance(schema, dict) else ""
                description = f"Set `{param}` on an open `{op}` transaction. {about}"
                parameters = {
                    "type": "object",
                    "properties": {"txn_id": _txn_schema(op), param: schema},
                    "required": ["txn_id", param],
                }
            else:
                description = f"Commit the open `{op}` transaction. Nothing happens until this is called."
                parameters = {"type": "object", "properties": {"txn_id": _txn_schema(op)}, "required": ["txn_id"]}
            out.append(ToolSpec(shown, description, parameters, tool.group))
        return out

    def decode(self, call: ToolCall, state: TransactionState) -> Decoded:
        role, op, param = self.table[call.name]
        if role == "plain":
            return Forward(call)
        if role == "begin":
            state.issued += 1
            state.open[f"txn_{state.issued}"] = _Open(op)
            return Answer({"txn_id": f"txn_{state.issued}"})
        txn_id = call.arguments["txn_id"]
        txn = state.open.get(txn_id)
        if txn is None or txn.tool != op:
            why = "is not open" if txn is None else f"was begun for {txn.tool}"
            raise reject(
                RejectionKind.UNKNOWN_TRANSACTION,
                f"transaction '{txn_id}' {why}; begin one with {self.names['begin', op, '']}",
            )
        if role == "set":
            txn.written[param] = call.arguments[param]
            return Answer({"txn_id": txn_id, "set": param})
        tool = next(t for t in self.lower if t.name == op)
        missing = [r for r in tool.parameters.get("required", []) if r not in txn.written]
        if missing:
            raise reject(
                RejectionKind.INCOMPLETE_TRANSACTION,
                f"cannot commit: missing required arguments {missing} (the transaction stays open)",
            )
        del state.open[txn_id]
        return Forward(ToolCall(op, dict(txn.written)))

    def decode_unchecked(self, call: ToolCall, state: TransactionState, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose`` (``simenv.py``, ``SimEnv.call``): a set or commit on a
        transaction that is not open for its operation is rejected tersely under both; a set stores
        every argument it carries but ``txn_id``, unchecked; a commit with required arguments unset is
        rejected under ``paper`` (the transaction stays open) and runs under ``loose``."""
        role, op, _ = self.table[call.name]
        if role in ("plain", "begin"):
            return Forward(call) if role == "plain" else self.decode(call, state)
        txn_id = call.arguments.get("txn_id")
        txn = state.open.get(txn_id) if isinstance(txn_id, str) else None
        if txn is None or txn.tool != op:
            raise reject(RejectionKind.UNKNOWN_TRANSACTION, f"{call.name}({txn_id}): begin a transaction first")
        if role == "set":
            txn.written.update({k: v for k, v in call.arguments.items() if k != "txn_id"})
            return Answer({"txn_id": txn_id, "set": sorted(k for k in call.arguments if k != "txn_id")})
        tool = next(t for t in self.lower if t.name == op)
        missing = [r for r in tool.parameters.get("required", []) if r not in txn.written]
        if missing and control == "paper":
            raise reject(RejectionKind.INCOMPLETE_TRANSACTION, f"cannot commit: missing required arguments {missing}")
        del state.open[txn_id]
        return Forward(ToolCall(op, dict(txn.written)))

    def encode(self, call: ToolCall) -> Plan:
        if ("plain", call.name, "") in self.names:
            return (yield call)
        reply = yield ToolCall(self.names["begin", call.name, ""], {})
        txn_id = reply["txn_id"]
        sets = [ToolCall(self.names["set", call.name, k], {"txn_id": txn_id, k: v}) for k, v in call.arguments.items()]
        if sets:
            yield Batch(tuple(sets))
        return (yield ToolCall(self.names["commit", call.name, ""], {"txn_id": txn_id}))


def _props(tool: ToolSpec) -> dict[str, Any]:
    return dict(tool.parameters.get("properties", {}))
