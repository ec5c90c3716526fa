"""The paper's reference resolution, behind ``reference(style=paper)`` (Action-Space Shaping,
"reference resolution"; ToolSchemaSpace ``toolschema/operators.py`` ``_apply_indirect`` and
``handle_of``, ``toolschema/simenv.py`` ``SimEnv._resolve``, ``benchmarks/synthetic/opspecs.py``).

Each referenced (operation, parameter) gets a resolver ``resolve_<op>__<param>(query)`` over a value
table; the operation takes ``<param>_ref`` (an opaque handle, moved to the end of its properties;
required where ``<param>`` was) instead of ``<param>``. The resolvers come first in the catalog, in
operation order. A handle is ``h_`` + the first 8 hex digits of SHA-1 of ``<op>::<param>::<value>``,
as the paper's, so it does not depend on the episode.

Which parameters, and their tables:

- ``file=<spec file>``: the paper's ``indirect`` ops for this catalog (the paper's tables: the
  domain's value pool of a free-string parameter plus every gold value of its tasks). On the
  paper's catalog with ``indirect.json`` this reproduces ``schemas/10_reference_resolution.json``.
- otherwise the rule for catalogs without value pools (toolprism's device domains have no free
  strings): every string parameter enumerating at least ``min_values`` (default 6) values, its
  enum as the table. The paper's pools hold 6 to 17 values (the smallest, ``announce.message``,
  6); a parameter with that many named values is the closest thing our catalogs have to a pooled
  name. Ratio 1.29x on the twelve device domains (the paper: 1.26x).

Resolving a query (``SimEnv._resolve``): an exact match, then a case-insensitive one of the
query without surrounding whitespace, answers
``{"handle"}``; otherwise ``difflib.get_close_matches`` (3 candidates, cutoff 0.6): one candidate, or a
best candidate with ratio >= 0.85, answers ``{"handle", "matched"}``; several answer ``{"error",
"candidates"}``; none answer ``{"error"}``. Resolver answers are replies, never rejections, as in the
paper. Deviation: the paper matches the stripped query case-insensitively only, so of two table
values differing in case (``Team Sync`` / ``Team sync``) one can never be resolved, nor can a value
with surrounding whitespace; the exact match first makes every table value reachable (the oracle
depends on it).

Strict decoding rejects a handle not in the table (UNKNOWN_HANDLE); under the paper's hard control
(and the loose one) it executes as an unresolved value (:meth:`PaperResolve.decode_unchecked`).
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from functools import cached_property

from toolprism.errors import ConfigError, RejectionKind
from toolprism.schema import JSON, ToolCall, ToolSpec
from toolprism.shaping._layer import Answer, Batch, Decoded, Forward, Plan, reject
from toolprism.shaping.operators._paper import paper_ops
from toolprism.shaping.operators._transaction import tool_name


def handle_of(op: str, param: str, value: JSON) -> str:
    """The paper's handle for ``value`` of ``op.param``: ``h_`` + 8 hex digits of SHA-1."""
    return "h_" + hashlib.sha1(f"{op}::{param}::{value}".encode()).hexdigest()[:8]


def lookup(query: str, table: dict[str, JSON], param: str) -> JSON:
    """The resolver's reply to ``query`` over ``table`` (handle → value); see the module doc."""
    exact = {str(v): h for h, v in table.items()}
    if query in exact:
        return {"handle": exact[query]}
    q = query.strip()
    lowered: dict[str, str] = {}
    for h, v in table.items():
        lowered.setdefault(str(v).lower(), h)
    if q.lower() in lowered:
        return {"handle": lowered[q.lower()]}
    close = difflib.get_close_matches(q.lower(), list(lowered), n=3, cutoff=0.6)
    if len(close) == 1 or (close and difflib.SequenceMatcher(None, q.lower(), close[0]).ratio() >= 0.85):
        return {"handle": lowered[close[0]], "matched": table[lowered[close[0]]]}
    if close:
        return {"error": "ambiguous or no exact match", "candidates": [table[lowered[c]] for c in close]}
    return {"error": f"no {param} matching {q!r}"}


@dataclass(frozen=True)
class _Ref:
    op: str
    param: str
    resolver: str
    table: dict[str, JSON]  # handle -> value


@dataclass(frozen=True)
class PaperResolve:
    """``reference(style=paper)`` over ``lower``; ``what`` names the operator in errors.

    Raises:
        ConfigError: when binding: a file op naming a parameter its tool lacks, or one with an empty
            table; a resolver or ``<param>_ref`` name already taken.
    """

    lower: list[ToolSpec]
    file: str
    min_values: int
    what: str
    only: frozenset[str] | None = None
    """By rule only: the operations that may have referenced parameters (None: all)."""

    @cached_property
    def refs(self) -> dict[str, list[_Ref]]:
        """Operation → its referenced parameters, in order."""
        problems: list[str] = []
        chosen: dict[str, list[tuple[str, list[JSON]]]] = {}
        if self.file:
            for o in paper_ops(self.file, "indirect", self.lower):
                tool = next(t for t in self.lower if t.name == o["tool"])
                if o.get("param") not in tool.parameters.get("properties", {}):
                    problems.append(f"{self.file}: {o['tool']} has no parameter {o.get('param')!r}")
                elif not o.get("values"):
                    problems.append(f"{self.file}: {o['tool']}.{o['param']} has no values")
                else:
                    chosen.setdefault(o["tool"], []).append((o["param"], list(o["values"])))
        else:
            for tool in self.lower:
                if self.only is not None and tool.name not in self.only:
                    continue
                for p, schema in tool.parameters.get("properties", {}).items():
                    if isinstance(schema, dict) and schema.get("type") == "string":
                        if len(schema.get("enum", [])) >= self.min_values:
                            chosen.setdefault(tool.name, []).append((p, list(schema["enum"])))
        taken = {t.name for t in self.lower}
        out: dict[str, list[_Ref]] = {}
        for tool in self.lower:
            for param, values in chosen.get(tool.name, []):
                resolver = tool_name(f"resolve_{tool.name}__{param}")
                if resolver in taken:
                    problems.append(f"{tool.name}.{param}: resolver name {resolver!r} is already taken")
                if f"{param}_ref" in tool.parameters.get("properties", {}):
                    problems.append(f"{tool.name}.{param}: it already takes a parameter '{param}_ref'")
                taken.add(resolver)
                table = {handle_of(tool.name, param, v): v for v in values}
                out.setdefault(tool.name, []).append(_Ref(tool.name, param, resolver, table))
        if problems:
            raise ConfigError(problems, what=f"operator {self.what}")
        return out

    @cached_property
    def resolvers(self) -> dict[str, _Ref]:
        return {r.resolver: r for refs in self.refs.values() for r in refs}

    def tools(self) -> list[ToolSpec]:
        group = {t.name: t.group for t in self.lower}
        shown = [
            ToolSpec(
                r.resolver,
                f"Look up the {r.param} for `{r.op}` by name/description and return an opaque handle. "
                f"Call this FIRST, then pass the returned handle to `{r.op}`.",
                {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": f"The {r.param} as mentioned by the user."}
                    },
                    "required": ["query"],
                },
                group[r.op],
            )
            for r in self.resolvers.values()
        ]
        return shown + [self._show(t) for t in self.lower]

    def _show(self, tool: ToolSpec) -> ToolSpec:
        refs = self.refs.get(tool.name)
        if not refs:
            return tool
        props = dict(tool.parameters.get("properties", {}))
        required = list(tool.parameters.get("required", []))
        for r in refs:
            del props[r.param]
            props[f"{r.param}_ref"] = {
                "type": "string",
                "description": f"Opaque handle for {r.param}, returned by `{r.resolver}`. "
                f"Do NOT pass the raw {r.param} value.",
            }
            required = [f"{r.param}_ref" if x == r.param else x for x in required]
        return ToolSpec(
            tool.name, tool.description, {**tool.parameters, "properties": props, "required": required}, tool.group
        )

    def convention(self) -> str:
        if not self.resolvers:
            return ""
        return (
            "Some arguments are passed by handle: call resolve_<operation>__<argument>(query) first, then pass "
            "the returned handle as <argument>_ref."
        )

    def decode(self, call: ToolCall) -> Decoded:
        if call.name in self.resolvers:
            r = self.resolvers[call.name]
            return Answer(lookup(str(call.arguments["query"]), r.table, r.param))
        args = dict(call.arguments)
        for r in self.refs.get(call.name, []):
            if f"{r.param}_ref" not in args:
                continue
            handle = args.pop(f"{r.param}_ref")
            if handle not in r.table:
                raise reject(
                    RejectionKind.UNKNOWN_HANDLE,
                    f"unknown handle {handle!r} for {r.param}_ref; get one with {r.resolver}(query)",
                )
            args[r.param] = r.table[handle]
        return Forward(ToolCall(call.name, args))

    def decode_unchecked(self, call: ToolCall) -> Decoded:
        """Adapter controls ``paper`` / ``loose``: a resolver answers as under ``strict`` (a query
        without ``query`` looks up ""); a handle not in its table passes down as the value
        ``<UNRESOLVED:handle>`` (``SeqDecoder._resolve_handles``), unchecked, so the call runs and
        scores as wrong arguments."""
        if call.name in self.resolvers:
            r = self.resolvers[call.name]
            return Answer(lookup(str(call.arguments.get("query", "")), r.table, r.param))
        args = dict(call.arguments)
        for r in self.refs.get(call.name, []):
            if f"{r.param}_ref" in args:
                handle = args.pop(f"{r.param}_ref")
                args[r.param] = (
                    r.table[handle] if isinstance(handle, str) and handle in r.table else f"<UNRESOLVED:{handle}>"
                )
        return Forward(ToolCall(call.name, args))

    def encode(self, call: ToolCall) -> Plan:
        refs = [r for r in self.refs.get(call.name, []) if r.param in call.arguments]
        if not refs:
            return (yield call)
        queries = tuple(ToolCall(r.resolver, {"query": str(call.arguments[r.param])}) for r in refs)
        replies = yield Batch(queries)
        args = {k: v for k, v in call.arguments.items() if k not in {r.param for r in refs}}
        for r, reply in zip(refs, replies, strict=True):
            if "handle" not in reply or r.table[reply["handle"]] != call.arguments[r.param]:
                raise ValueError(f"reference cannot encode {call.name}.{r.param}={call.arguments[r.param]!r}")
            args[f"{r.param}_ref"] = reply["handle"]
        return (yield ToolCall(call.name, args))
