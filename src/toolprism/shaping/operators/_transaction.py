"""``transaction``: every call becomes begin / one write per argument / commit (seed 000,
cross-call protocols). ``begin`` answers a transaction id; ``write`` stores one argument;
``commit`` runs the tool with the written arguments and closes the transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolprism.errors import RejectedCall, RejectionKind
from toolprism.schema import JSON, ToolCall, ToolSpec
from toolprism.shaping._layer import Answer, Batch, Decoded, Forward, Operator, Plan


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
    """Hide every tool behind ``begin(tool)``, ``write(txn_id, argument, value)``, ``commit(txn_id)``.

    Rejections: an unknown, already committed or never begun ``txn_id`` (UNKNOWN_TRANSACTION);
    a written argument the tool does not take, or a value its schema refuses (INVALID_ARGUMENTS);
    a commit with required arguments unwritten (INCOMPLETE_TRANSACTION, the transaction stays open).
    """

    name = "transaction"

    def tools(self) -> list[ToolSpec]:
        lower = self.below.tools()
        catalog = "\n".join(
            f"- {t.name}({', '.join(t.parameters.get('properties', {}))}): {t.description}" for t in lower
        )
        txn = {"type": "string", "description": "the id returned by begin"}
        return [
            ToolSpec(
                "begin",
                "Start a transaction for one tool call; returns a txn_id. Then call write once per "
                "argument and commit to run it. Tools:\n" + catalog,
                {
                    "type": "object",
                    "properties": {"tool": {"type": "string", "enum": [t.name for t in lower]}},
                    "required": ["tool"],
                    "additionalProperties": False,
                },
            ),
            ToolSpec(
                "write",
                "Set one argument of the tool call in an open transaction.",
                {
                    "type": "object",
                    "properties": {
                        "txn_id": txn,
                        "argument": {"type": "string"},
                        "value": {"description": "the argument's value (any JSON value)"},
                    },
                    "required": ["txn_id", "argument", "value"],
                    "additionalProperties": False,
                },
            ),
            ToolSpec(
                "commit",
                "Run the tool call of a transaction with the written arguments and close it.",
                {
                    "type": "object",
                    "properties": {"txn_id": txn},
                    "required": ["txn_id"],
                    "additionalProperties": False,
                },
            ),
        ]

    def convention(self) -> str:
        return (
            "Every action is a transaction: call begin with the tool's name to get a txn_id, write each "
            "argument with write(txn_id, argument, value), then call commit(txn_id)."
        )

    def new_state(self) -> TransactionState:
        return TransactionState()

    def decode(self, call: ToolCall, state: TransactionState) -> Decoded:
        args = call.arguments
        if call.name == "begin":
            state.issued += 1
            txn_id = f"txn_{state.issued}"
            state.open[txn_id] = _Open(args["tool"])
            return Answer({"txn_id": txn_id, "tool": args["tool"]})
        txn_id = args["txn_id"]
        if txn_id not in state.open:
            raise RejectedCall(
                RejectionKind.UNKNOWN_TRANSACTION,
                f"transaction '{txn_id}' is not open (never begun or already committed); call begin first",
            )
        txn = state.open[txn_id]
        tool = self.below.tool(txn.tool)
        properties = tool.parameters.get("properties", {})
        if call.name == "write":
            return Answer(self._write(txn_id, txn, tool, args["argument"], args["value"]))
        missing = [r for r in tool.parameters.get("required", []) if r not in txn.written]
        if missing:
            raise RejectedCall(
                RejectionKind.INCOMPLETE_TRANSACTION,
                f"cannot commit '{txn_id}': tool '{txn.tool}' needs argument(s) {', '.join(missing)} "
                "to be written first",
            )
        assert set(txn.written) <= set(properties)
        del state.open[txn_id]
        return Forward(ToolCall(txn.tool, dict(txn.written)))

    @staticmethod
    def _write(txn_id: str, txn: _Open, tool: ToolSpec, argument: str, value: JSON) -> JSON:
        properties = tool.parameters.get("properties", {})
        if argument not in properties:
            raise RejectedCall(
                RejectionKind.INVALID_ARGUMENTS,
                f"tool '{txn.tool}' has no argument '{argument}'; its arguments are: {', '.join(properties) or 'none'}",
            )
        single = ToolSpec(tool.name, "", {"type": "object", "properties": {argument: properties[argument]}})
        try:
            single.validate({argument: value})
        except RejectedCall as e:
            raise RejectedCall(
                e.kind, f"invalid value for '{argument}' of tool '{txn.tool}': " + e.reason.split(": ", 1)[-1]
            ) from None
        txn.written[argument] = value
        return {"txn_id": txn_id, "written": argument}

    def encode(self, call: ToolCall) -> Plan:
        reply = yield ToolCall("begin", {"tool": call.name})
        txn_id = reply["txn_id"]
        writes = [ToolCall("write", {"txn_id": txn_id, "argument": k, "value": v}) for k, v in call.arguments.items()]
        if writes:
            yield Batch(tuple(writes))
        return (yield ToolCall("commit", {"txn_id": txn_id}))
