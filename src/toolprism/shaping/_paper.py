"""The Action-Space Shaping paper's 32 variants, under the paper's names (``paper`` suite).

Each entry names the paper's variant (its Figure 2 / Appendix Figure 4 label), the spec string that
builds it here, and how the paper builds it (the row of its ``benchmarks/synthetic/data/registry.json``:
a ladder step of ``SchemaAdapter(k)``, a spec file, or a hierarchy arm). ``scope`` says where it
applies: ``domain`` variants transform one domain's catalog at a time (the paper's "per domain"),
``catalog`` variants show the whole twelve-domain device catalog at once (the class arms).

Source: Action-Space Shaping, Figure 2 and Appendix Figure 4; public code ``williamLyh/ToolSchemaSpace``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scope = Literal["domain", "catalog"]

CATALOG_DOMAIN = "whole_catalog"
"""The whole-catalog domain the ``catalog`` arms run on (the twelve device domains at once)."""


@dataclass(frozen=True)
class PaperVariant:
    """One of the paper's variants.

    Attributes:
        name: the suite name (a slug of the paper's label, usable on the command line).
        title: the paper's label, e.g. ``merge · domain 0.29x``.
        figure: where the paper reports it (``Figure 2`` or ``Appendix Figure 4``).
        spec: the toolprism spec string that builds it.
        scope: ``domain`` (per domain) or ``catalog`` (the whole device catalog).
        paper: how the paper's code builds it (``ladder k=0``, ``spec pred.json``, ``hierarchy dispatch``).
    """

    name: str
    title: str
    figure: str
    spec: str
    scope: Scope
    paper: str


_F2, _A4 = "Figure 2", "Appendix Figure 4"

PAPER_VARIANTS: tuple[PaperVariant, ...] = (
    PaperVariant("native", "native", _F2, "", "domain", "ladder k=5"),
    PaperVariant("fully-merged", "fully merged", _F2, "ladder(k=0)", "domain", "ladder k=0"),
    PaperVariant("class-dispatch", "class dispatch", _F2, "merge(by=class,args=flat)", "catalog", "hierarchy dispatch"),
    PaperVariant("fully-split", "fully split", _F2, "ladder(k=9)", "domain", "ladder k=9"),
    PaperVariant("interval-split", "interval split", _F2, "interval", "domain", "spec pred.json"),
    PaperVariant("nested-args", "nested args", _F2, "nest(param=options,keep=1)", "domain", "spec pack.json"),
    PaperVariant(
        "namespaced-names", "namespaced names", _F2, "rename(style=namespaced)", "catalog", "hierarchy qualified"
    ),
    PaperVariant("strip-descriptions", "strip descriptions", _F2, "strip(what=all)", "domain", "spec s_nodesc.json"),
    PaperVariant(
        "reorder-arguments", "reorder arguments", _F2, "reorder(seed=13,style=paper)", "domain", "spec s_shuffle.json"
    ),
    PaperVariant("transaction", "transaction", _F2, "transaction(setters=tool)", "domain", "spec curry.json"),
    PaperVariant(
        "reference-resolution", "reference resolution", _F2, "reference(style=paper)", "domain", "spec indirect.json"
    ),
    PaperVariant(
        "schema-discovery", "schema discovery", _F2, "discovery(style=paper)", "catalog", "hierarchy disclose"
    ),
    PaperVariant("composed", "composed", _F2, "compose", "domain", "spec mixed.json"),
    PaperVariant("merge-domain-0.29x", "merge · domain 0.29x", _A4, "ladder(k=1)", "domain", "ladder k=1"),
    PaperVariant("merge-domain-0.46x", "merge · domain 0.46x", _A4, "ladder(k=2)", "domain", "ladder k=2"),
    PaperVariant("merge-domain-0.69x", "merge · domain 0.69x", _A4, "ladder(k=3)", "domain", "ladder k=3"),
    PaperVariant("merge-domain-0.85x", "merge · domain 0.85x", _A4, "ladder(k=4)", "domain", "ladder k=4"),
    PaperVariant(
        "merge-domain-nested",
        "merge · domain, nested",
        _A4,
        "merge(by=full,args=nested)",
        "domain",
        "spec merge_full_nested.json",
    ),
    PaperVariant(
        "merge-domain-union",
        "merge · domain, union",
        _A4,
        "merge(by=full,args=union)",
        "domain",
        "spec merge_full_union.json",
    ),
    PaperVariant(
        "merge-semantic-groups", "merge · semantic groups", _A4, "merge(by=semantic)", "domain", "spec mgroup_sem.json"
    ),
    PaperVariant(
        "merge-random-groups",
        "merge · random groups",
        _A4,
        "merge(by=shuffled,seed=20260715)",
        "domain",
        "spec mgroup_rand.json",
    ),
    PaperVariant(
        "merge-anti-semantic-groups",
        "merge · anti-semantic groups",
        _A4,
        "merge(by=anti_semantic)",
        "domain",
        "spec mgroup_anti.json",
    ),
    PaperVariant(
        "merge-catalog-neutral",
        "merge · catalog, neutral names",
        _A4,
        "merge(by=class_neutral)",
        "catalog",
        "spec class_neutral.json",
    ),
    PaperVariant(
        "merge-catalog-random-classes",
        "merge · catalog, random classes",
        _A4,
        "merge(by=class_random)",
        "catalog",
        "spec random_neutral_r0.json",
    ),
    PaperVariant(
        "merge-catalog-anti-classes",
        "merge · catalog, anti-classes",
        _A4,
        "merge(by=class_anti)",
        "catalog",
        "spec anti_class_neutral_r0.json",
    ),
    PaperVariant(
        "native-whole-catalog", "native · whole catalog", _A4, "rename(style=flat)", "catalog", "hierarchy flat"
    ),
    PaperVariant("split-enum-1.5x", "split · enum 1.5x", _A4, "ladder(k=6)", "domain", "ladder k=6"),
    PaperVariant("split-enum-2.9x", "split · enum 2.9x", _A4, "ladder(k=7)", "domain", "ladder k=7"),
    PaperVariant("split-enum-5.4x", "split · enum 5.4x", _A4, "ladder(k=8)", "domain", "ladder k=8"),
    PaperVariant("split-one-enum", "split · one enum", _A4, "split(style=paper)", "domain", "spec enum1.json"),
    PaperVariant(
        "split-all-enums", "split · all enums", _A4, "split(style=paper,on=all,cap=24)", "domain", "spec enumfull.json"
    ),
    PaperVariant("rename-opaque", "rename · opaque", _A4, "rename(style=opaque)", "domain", "spec s_obf.json"),
)
"""The paper's 13 representative variants (Figure 2) and 19 appendix variants (Appendix Figure 4)."""

PAPER_INSTRUCTION = (
    "IMPORTANT: You are given a specific set of callable functions as your tools. "
    "You must accomplish the task using ONLY these provided functions and their "
    "declared arguments. Do not call any function that is not in the provided tool "
    "list, even if you know such a function exists. Encode every action using the "
    "tools exactly as defined."
)
"""The instruction the paper's runner appends to every system prompt under a variant
(``toolschema/schema_adapter.py``, ``TOOL_INSTRUCTION``; CC BY 4.0, quoted verbatim because it is part
of the measurement condition the ``action-space-shaping`` preset reproduces)."""

PAPER_MAX_TURNS = 16
"""The paper runner's turn limit (``eval/run_agentic.py``, ``MAX_TURNS``)."""
