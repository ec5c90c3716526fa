"""The overview section: what each run is (its header), how many episodes it holds, those left out
of every score, and the wall time and tokens its episodes used where they were stored."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from toolprism.report._html import render
from toolprism.report._section import LoadedRun, Section
from toolprism.run import RunHeader, RunStore

NOT_RECORDED = "not recorded"


@dataclass(frozen=True)
class RunUsage:
    """Resources a run's stored episodes used.

    Attributes:
        wall_s: the episodes' summed wall time in seconds (None when no episode stored one).
        prompt_tokens / completion_tokens: summed over every turn that reports them (None when no
            turn of the run does).
    """

    wall_s: float | None
    prompt_tokens: int | None
    completion_tokens: int | None


def run_usage(run: LoadedRun) -> tuple[RunHeader, RunUsage]:
    """The run's header and its stored usage (reads every trace once)."""
    store = RunStore.open(run.path)
    try:
        header = store.header
        results = store.results()
        wall_ms = [r.duration_ms for r in results if r.duration_ms]
        prompt = completion = 0
        counted = False
        for result in results:
            turns = store.trace(result.episode_id).turns
            for turn in turns:
                counted |= turn.prompt_tokens is not None or turn.completion_tokens is not None
                prompt += turn.prompt_tokens or 0
                completion += turn.completion_tokens or 0
    finally:
        store.close()
    return header, RunUsage(
        wall_s=sum(wall_ms) / 1000 if wall_ms else None,
        prompt_tokens=prompt if counted else None,
        completion_tokens=completion if counted else None,
    )


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return NOT_RECORDED
    if seconds < 120:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {secs:02d} s"


def _tokens(usage: RunUsage) -> str:
    if usage.prompt_tokens is None:
        return NOT_RECORDED
    total = usage.prompt_tokens + (usage.completion_tokens or 0)
    return f"{total:,} ({usage.prompt_tokens:,} prompt, {usage.completion_tokens or 0:,} completion)"


def _seeds(run: LoadedRun, header: RunHeader) -> str:
    seeds = sorted({int(s) for s in run.frame["seed"]}) if len(run.frame) else []
    episode = ", ".join(map(str, seeds[:12])) + (" …" if len(seeds) > 12 else "")
    return f"run seed {header.config.seed}; episode seeds {episode or '—'}"


def _task_sets(header: RunHeader) -> str:
    if not header.tasks:
        return NOT_RECORDED
    parts = []
    for domain, pins in header.tasks.items():
        digest = (pins.set_hash or "unknown")[:12]
        parts.append(f"{domain} v{pins.version}: {len(pins.tasks)} tasks, set {digest}")
    return "; ".join(parts)


def header_rows(run: LoadedRun, header: RunHeader, usage: RunUsage) -> dict[str, str]:
    """The overview's rows for one run: field -> plain text (escaped when rendered)."""
    config = header.config
    score = run.score
    model = score.outcomes[0].model if score.outcomes else config.model or NOT_RECORDED
    variants = config.variants or list(header.variant_specs) or list(dict.fromkeys(v.variant for v in score.variants))
    overflow = sum(o.context_overflow for o in score.outcomes)
    errors = sum(o.backend_error for o in score.outcomes)
    planned = "unknown" if score.planned is None else str(score.planned)
    backend = {k: v for k, v in header.backend.items() if v not in (None, "", {}, [])}
    return {
        "run directory": str(run.path),
        "model": model,
        "backend": json.dumps(backend, sort_keys=True, default=str) if backend else NOT_RECORDED,
        "domains": ", ".join(config.domains) or NOT_RECORDED,
        "variants": f"{len(variants)}: " + ", ".join(variants) if variants else NOT_RECORDED,
        "control · instruction": f"{config.control} · {config.instruction}"
        + (f" · preset {config.preset}" if config.preset else ""),
        "mitigations": ", ".join(config.mitigations) or "none",
        "perturbations": ", ".join(config.perturbations) or "none (clean only)",
        "seeds": _seeds(run, header),
        "max turns": str(config.max_turns),
        "toolprism version": header.toolprism_version or NOT_RECORDED,
        "git revision": (header.git_revision or NOT_RECORDED)[:12],
        "created": header.created_at or NOT_RECORDED,
        "task sets": _task_sets(header),
        "episodes": f"{score.recorded} recorded of {planned} planned, {score.episodes} scored",
        "not scored": f"{overflow} context overflow, {errors} backend error",
        "wall time (episodes summed)": _duration(usage.wall_s),
        "tokens": _tokens(usage),
    }


_HTML = """
{% for label, path, recorded, planned in partial %}
<p class="warning"><strong>Incomplete run {{ label }}:</strong> {{ recorded }} of {{ planned }} planned episodes are
recorded, so every rate below covers only those (variants not yet run have no cell, and gaps compare
only the variants that have). If the run was stopped, continue it with
<code>toolprism run --resume {{ path }}</code> and write the report again.</p>
{% endfor %}
<p class="note">What each run is (its stored header) and what it holds. Episodes that outgrew the
model's context or that the backend failed are left out of every score below.</p>
<div class="scroll"><table class="kv">
{% if labels|length > 1 %}<tr><th></th>{% for label in labels %}<th>{{ label }}</th>{% endfor %}</tr>{% endif %}
{% for field in fields %}
<tr><th>{{ field }}</th>{% for rows in table %}<td>{{ rows[field] }}</td>{% endfor %}</tr>
{% endfor %}
</table></div>
{% if unscored %}
<h3>Not scored, per cell</h3>
<table>
<tr><th>run</th><th>model</th><th>variant</th><th>condition</th><th class="num">recorded</th>
<th class="num">scored</th><th class="num">context overflow</th><th class="num">backend error</th></tr>
{% for run, o in unscored %}
<tr><td>{{ run }}</td><td>{{ o.model }}</td><td>{{ o.variant }}</td><td>{{ o.condition or "clean" }}</td>
<td class="num">{{ o.recorded }}</td><td class="num">{{ o.scored }}</td>
<td class="num">{{ o.context_overflow }}</td><td class="num">{{ o.backend_error }}</td></tr>
{% endfor %}
</table>
{% endif %}
"""


def overview_section(runs: Sequence[LoadedRun]) -> Section | None:
    """The overview: each run's header, episode counts, episodes not scored (context overflow,
    backend error), wall time and tokens (``not recorded`` where the run did not store them).
    None without runs."""
    if not runs:
        return None
    table = [header_rows(run, *run_usage(run)) for run in runs]
    labels = [r.label for r in runs]
    unscored = [(r.label, o) for r in runs for o in r.score.outcomes if o.context_overflow or o.backend_error]
    partial = [
        (r.label, r.path, r.score.recorded, r.score.planned) for r in runs if (r.score.planned or 0) > r.score.recorded
    ]
    html = render(_HTML, labels=labels, fields=list(table[0]), table=table, unscored=unscored, partial=partial)
    markdown = _markdown(labels, table)
    return Section(id="overview", title="Overview", html=html, markdown=markdown)


def _markdown(labels: list[str], table: list[dict[str, str]]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    keep = ("model", "domains", "variants", "mitigations", "perturbations", "toolprism version", "git revision")
    keep += ("episodes",)
    lines = ["| | " + " | ".join(map(cell, labels)) + " |", "|---|" + "---|" * len(labels)]
    lines += [f"| {f} | " + " | ".join(cell(rows[f]) for rows in table) + " |" for f in keep + ("not scored",)]
    return "\n".join(lines)
