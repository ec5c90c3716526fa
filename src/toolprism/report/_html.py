"""Shared helpers of the report's sections: jinja2 with autoescaping, the success color scale, rate
formatting, and matplotlib figures built without pyplot (no global state, no GUI backend).

Every fragment a section renders goes through :func:`render`, whose environment escapes every
value (``autoescape=True``): names from a user's catalog, model output and tool returns can never
reach the page as markup.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, StrictUndefined, Template
from markupsafe import Markup

if TYPE_CHECKING:
    from matplotlib.colors import Colormap
    from matplotlib.figure import Figure

SCALE: tuple[tuple[float, str], ...] = tuple(
    (i / 6, color)
    for i, color in enumerate(("#b2182b", "#ef8a62", "#fddbc7", "#f7f7f7", "#d1e5f0", "#67a9cf", "#2166ac"))
)
"""The success color scale: ColorBrewer's 7-class RdBu (red 0%, near-white 50%, blue 100%) as
evenly spaced stops, interpolated linearly; the same stops color the HTML grid cells and the
matplotlib heat map."""

MISSING = "#eeeeee"
"""Color of a cell with no scored episode."""


@cache
def _environment() -> Environment:
    env = Environment(autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = pct
    env.filters["interval"] = interval
    env.filters["short_interval"] = short_interval
    env.globals["cell_style"] = cell_style
    return env


@cache
def _template(source: str) -> Template:
    return _environment().from_string(source)


def render(source: str, **context: Any) -> Markup:
    """Render a jinja2 template string with autoescaping; the result is safe HTML.

    Filters: ``pct`` (a rate as ``42%``, ``—`` for None) and ``interval`` (``[31%, 55%]``);
    global ``cell_style(rate)`` (the CSS background and text color of a success cell).
    """
    return Markup(_template(source).render(**context))


def pct(rate: float | None, digits: int = 0) -> str:
    """A rate in [0, 1] as a percentage (``42%``); ``—`` for None."""
    return "—" if rate is None else f"{rate:.{digits}%}"


def interval(low: float | None, high: float | None) -> str:
    """A 95% interval as ``[31%, 55%]``; ``—`` when unknown."""
    return "—" if low is None or high is None else f"[{low:.0%}, {high:.0%}]"


def short_interval(low: float | None, high: float | None) -> str:
    """A 95% interval as ``31–55%`` (for narrow cells); ``—`` when unknown."""
    return "—" if low is None or high is None else f"{low * 100:.0f}–{high:.0%}"


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def scale_color(rate: float | None) -> str:
    """The scale's color of ``rate`` (linear between the stops of :data:`SCALE`), as ``#rrggbb``;
    :data:`MISSING` for None."""
    if rate is None:
        return MISSING
    rate = min(max(rate, 0.0), 1.0)
    for (x0, c0), (x1, c1) in zip(SCALE, SCALE[1:], strict=False):
        if rate <= x1:
            t = (rate - x0) / (x1 - x0)
            mixed = (round(a + (b - a) * t) for a, b in zip(_rgb(c0), _rgb(c1), strict=True))
            return "#{:02x}{:02x}{:02x}".format(*mixed)
    return SCALE[-1][1]


def text_color(background: str) -> str:
    """Black or white, whichever reads better on ``background`` (relative luminance)."""
    r, g, b = (c / 255 for c in _rgb(background))
    return "#111111" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 else "#ffffff"


def cell_style(rate: float | None) -> str:
    """``background:…;color:…`` for a success cell (a CSS declaration list)."""
    background = scale_color(rate)
    return f"background:{background};color:{text_color(background)}"


def colormap() -> Colormap:
    """:data:`SCALE` as a matplotlib colormap."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("toolprism-success", list(SCALE))


def plain(text: str) -> str:
    """``text`` for a matplotlib label, shown as written: a ``$`` in a model, run or variant name
    would otherwise start mathtext (and malformed mathtext fails when the figure is drawn)."""
    return text.replace("$", r"\$")


def new_figure(width_in: float, height_in: float) -> Figure:
    """A matplotlib figure of ``width_in`` x ``height_in`` inches with the report's style, built
    without pyplot (it is rendered by Agg or the SVG backend when saved; nothing is shown)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width_in, height_in), layout="constrained")
    figure.set_facecolor("white")
    return figure


def style_axes(ax: Any) -> None:
    """The report's axis style: no top/right spines, a light grid behind the data."""
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_axisbelow(True)
    ax.grid(True, color="#e4e4e4", linewidth=0.6)
    ax.tick_params(labelsize=8.5)
