"""``upgrade_spec``: specs recorded before the merge encodings took the paper's names keep their
meaning (old ``flat|nested|union`` and the old default are now ``shared|prose|prefixed``)."""

from __future__ import annotations

import pytest

from toolprism.domains import get_domain
from toolprism.shaping import Variant, upgrade_spec

CASES = [
    ("merge", "merge(args=shared)"),
    ("merge(by=class)", "merge(by=class,args=shared)"),
    ("merge(by=full,args=flat)", "merge(by=full,args=shared)"),
    ("merge(by=full,args=nested)|rename(style=opaque)", "merge(by=full,args=prose)|rename(style=hash)"),
    ("rename(style=namespaced)|discovery", "rename(style=domain-class)|discovery(style=gated)"),
    ("rename", "rename(style=hash)"),
    ("split|transaction", "split|transaction(setters=shared)"),
    ("split(on=all)|merge(by=random,k=3,seed=0,args=union)", "split(on=all)|merge(by=random,k=3,seed=0,args=prefixed)"),
    ("merge(args=union)|merge", "merge(args=prefixed)|merge(args=shared)"),
    ("split", "split"),
    ("native", "native"),
    ("merge-class-nested", "merge-class-nested"),
    ("", ""),
]


@pytest.mark.parametrize(("old", "new"), CASES)
def test_old_specs_are_translated(old: str, new: str) -> None:
    assert upgrade_spec(old) == new
    assert upgrade_spec(new) == new  # idempotent


@pytest.mark.parametrize(
    ("old", "shape"),
    [
        ("merge(by=class,args=flat)", {"operation", "room", "power"}),
        ("merge(by=class,args=nested)", {"operation", "arguments"}),
        ("merge(by=class,args=union)", {"operation", "set_light_power__room"}),
    ],
)
def test_an_upgraded_spec_builds_the_old_shape(old: str, shape: set[str]) -> None:
    """What each old encoding showed (its shape before the rename) is what the upgraded spec shows."""
    lights = Variant.build(upgrade_spec(old), get_domain("smart_home").action_space()).top.tool("lights")
    assert shape <= set(lights.parameters["properties"])
    assert not any("::" in p for p in lights.parameters["properties"])
