"""How the end-to-end oracle tests pick a sample of a domain's tasks."""

from __future__ import annotations

import itertools
import zlib


def sample_tasks(tasks: list, size: int, spec: str) -> list:
    """``size`` of ``tasks``: one of each template in turn (a template is the task id without its
    number), the templates in their order rotated to begin at one chosen by ``spec``'s CRC-32. A
    size at least the template count covers every template; smaller ones cover different templates
    under different variants."""
    templates: dict[str, list] = {}
    for task in tasks:
        templates.setdefault(task.id.rsplit("/", 1)[0], []).append(task)
    groups = list(templates.values())
    start = zlib.crc32(spec.encode()) % len(groups)
    rounds = itertools.zip_longest(*groups[start:], *groups[:start])
    return [task for round_ in rounds for task in round_ if task is not None][:size]
