"""Reading the report's markdown tables back, for the section tests."""

from __future__ import annotations

import re


def markdown_tables(markdown: str) -> dict[str, list[dict[str, str]]]:
    """The markdown's tables by their ``###`` title: rows as column → cell."""
    tables: dict[str, list[dict[str, str]]] = {}
    for block in re.split(r"^### ", markdown, flags=re.M)[1:]:
        title, _, body = block.partition("\n")
        lines = [line for line in body.splitlines() if line.startswith("|")]
        header = [c.strip() for c in lines[0].strip("|").split(" | ")]
        cells = [[c.strip() for c in line.strip("|").split(" | ")] for line in lines[2:]]
        tables[title] = [dict(zip(header, row, strict=True)) for row in cells]
    return tables
