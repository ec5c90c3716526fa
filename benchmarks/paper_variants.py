"""The paper suite as a table: every Action-Space Shaping variant with its spec, how the paper builds it,
and its tool-count ratio to native on toolprism's twelve device domains and on the paper's own catalog.

Ratios: a per-domain variant's ratio is the mean over the domains of (variant tools / native tools),
as the paper quotes its ladder; a whole-catalog arm's is its tools over the catalog's native tools
(on ``whole_catalog`` here, on the paper's 168 tools imported as one whole catalog there). On the
paper's catalog, the variants the paper builds from a spec file with values drawn from its tasks
(interval split, reference resolution, composed) are built from that file (``file=``), as the paper does.

    python benchmarks/paper_variants.py [TOOLSCHEMASPACE_DIR]     # prints Markdown

Reads ``../shared/external/toolschemaspace`` by default; without it, prints the first ratio column only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from statistics import mean

from toolprism.domains import get_domain
from toolprism.evaluation import DEVICE_DOMAINS
from toolprism.interop import import_toolschemaspace
from toolprism.schema import ActionSpace, load_catalog
from toolprism.shaping import CATALOG_DOMAIN, PAPER_VARIANTS, Variant

SPEC_FILES = {
    "interval-split": "interval(file={specs}/pred.json)",
    "reference-resolution": "reference(style=paper,file={specs}/indirect.json)",
    "composed": "compose(file={specs}/mixed.json)",
}
"""Paper variants built from the paper's spec files on its catalog (their values come from its tasks)."""


def ratio(spec: str, spaces: list[ActionSpace]) -> float:
    """Mean over ``spaces`` of the variant's tools over the native tools."""
    return mean(len(Variant.build(spec, s).tools()) / len(s.operations) for s in spaces)


def main(folder: Path) -> None:
    ours = [get_domain(d).action_space() for d in DEVICE_DOMAINS]
    whole = get_domain(CATALOG_DOMAIN).action_space()
    paper: list[ActionSpace] = []
    paper_whole: ActionSpace | None = None
    if (folder / "tools.json").is_file():
        groups = dict.fromkeys(t["group"] for t in json.loads((folder / "tools.json").read_text()))
        paper = [load_catalog(folder / "tools.json", group=g) for g in groups]
        imported = import_toolschemaspace(folder / "tools.json", folder / "queries.sample.jsonl", whole_catalog=True)
        paper_whole = imported.packs[0].action_space()
    header = ("variant", "paper name", "figure", "spec", "paper's construction", "ratio, our 12 domains")
    print("| " + " | ".join((*header, "ratio, paper's catalog")) + " |")
    print("|---|---|---|---|---|---|---|")
    for v in PAPER_VARIANTS:
        catalog = v.scope == "catalog"
        here = ratio(v.spec, [whole] if catalog else ours)
        there = "—"
        if paper:
            spec = SPEC_FILES.get(v.name, v.spec).format(specs=folder / "specs")
            shown = spec.replace(str(folder / "specs"), "specs")
            value = ratio(spec, [paper_whole] if catalog and paper_whole else paper)
            there = f"{value:.2f}x" + (f" (`{shown}`)" if spec != v.spec else "")
        scope = " (whole catalog)" if catalog else ""
        cells = (f"`{v.name}`", v.title, v.figure, f"`{v.spec or 'native'}`", v.paper + scope, f"{here:.2f}x", there)
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else Path(__file__).resolve().parents[1] / ".." / "shared" / "external" / "toolschemaspace"
    )
