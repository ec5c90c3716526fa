"""rename(style=namespaced) stays a valid tool name, deterministically, when a prefix would break it."""

from __future__ import annotations

import re

from toolprism.schema import ActionSpace, Operation, Param, ToolCall
from toolprism.shaping import AdapterSession, Variant


def test_long_or_invalid_namespaced_names_are_shortened_deterministically() -> None:
    param = Param("x", {"type": "integer"})
    space = ActionSpace("a" * 40, (Operation("b" * 30, params=(param,), group="g.x"), Operation("c" * 30, group="g.x")))
    variant = Variant.build("rename(style=namespaced)", space)
    names = [t.name for t in variant.tools()]
    assert len(set(names)) == 2 and all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", n) for n in names)
    assert names == [t.name for t in Variant.build("rename(style=namespaced)", space).tools()]
    executed = []
    session = AdapterSession(variant, lambda action: executed.append(action) or {"ok": True})
    decision = session.handle(ToolCall(names[0], {"x": 1}))
    assert decision.outcome == "executed" and executed == [space.action("b" * 30, {"x": 1})]
