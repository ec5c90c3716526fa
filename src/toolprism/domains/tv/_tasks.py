"""Task templates of the tv domain.

Everything a user may ask is an *ask*: a :class:`~toolprism.domains._phrasing.Request` phrased
from the current state of one set (a louder or quieter wording depending on the current volume,
a value always different from the current one, only what the child lock allows), plus the
settings it touches. Tasks are built from asks:

- ``question`` and ``single``: one read, or one write on the fresh world;
- ``compound``: 2-5 asks on the fresh world that touch different settings, so any order works;
- compositional templates: a chain on one set where later asks need earlier ones (turn on, then
  set; switch to the antenna, then tune; unmute, then set the volume; checked on a simulated copy
  of the world), or a read whose reply supplies a later value (a guide lookup, another set's
  volume or channel, the installed apps, a condition on the state).

Every gold write is accepted and changes the state; every gold value is stated in the query or,
for compositional tasks, shown by an earlier read.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import Drafts, Simulator, compound, extend, requests_of
from toolprism.domains._phrasing import Request, request
from toolprism.domains.tv._ops import OPERATIONS
from toolprism.domains.tv._state import (
    APPS,
    GENRES,
    KIDS_APP,
    PICTURE_MODES,
    SUBTITLES,
    TVS,
    GuideChannel,
    Television,
    TvName,
    TvState,
)

ALL_SLOTS = frozenset({"power", "content", "volume", "mode", "subtitles", "timer", "lock"})


@dataclass(frozen=True)
class Ask:
    """A request on one set and the settings it touches (asks sharing none are independent)."""

    request: Request
    tv: TvName
    slots: frozenset[str]

    def independent_of(self, other: Ask) -> bool:
        return self.tv != other.tv or not self.slots & other.slots


Atom = Callable[[random.Random, TvState, TvName], Ask | None]


def _w(name: str) -> str:
    return name.replace("_", " ")


def _ask(tv: TvName, slots: set[str] | frozenset[str], direct: list[str], indirect: list[str], *gold) -> Ask:
    return Ask(request(direct, indirect, *gold), tv, frozenset(slots))


def _allowed_channels(s: TvState, t: Television) -> list[GuideChannel]:
    return [c for c in s.guide if t.child_lock == "off" or c.genre == "kids"]


def _allowed_apps(t: Television) -> list[str]:
    return [a for a in t.installed_apps if t.child_lock == "off" or a == KIDS_APP]


# --- atoms: one write on one set, phrased from its current state --------------------------------


def _power(rng: random.Random, s: TvState, tv: TvName) -> Ask:
    n = _w(tv)
    if s.tvs[tv].power == "off":
        direct = [f"turn on the {n} tv", f"switch the {n} television on"]
        indirect = [f"get the {n} tv going by switching it on", f"switch the {n} tv on because I want to watch"]
        return _ask(tv, ALL_SLOTS, direct, indirect, ("set_power", {"tv": tv, "power": "on"}))
    direct = [f"turn off the {n} tv", f"switch the {n} television off"]
    indirect = [f"switch the {n} tv off since nobody is watching it", f"save some power and turn the {n} tv off"]
    return _ask(tv, ALL_SLOTS, direct, indirect, ("set_power", {"tv": tv, "power": "off"}))


_INPUT_GOAL = {
    "hdmi1": "switch the {n} tv to hdmi1 because the console is plugged in there",
    "hdmi2": "put the {n} tv on hdmi2 so I can watch from the laptop",
    "antenna": "switch the {n} tv back to the antenna for regular broadcast channels",
}


def _input(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    t = s.tvs[tv]
    if t.power == "off":
        return None
    choices = [i for i in _INPUT_GOAL if i != t.input]
    if t.child_lock == "on" and _genre_of(s, t.channel) != "kids":
        choices = [i for i in choices if i != "antenna"]
    value, n = rng.choice(choices), _w(tv)
    direct = [f"switch the {n} tv to {value}", f"set the {n} tv input to {value}"]
    indirect = [_INPUT_GOAL[value].format(n=n)]
    return _ask(tv, {"content"}, direct, indirect, ("set_input", {"tv": tv, "input": value}))


def _genre_of(s: TvState, number: int) -> str | None:
    return next((c.genre for c in s.guide if c.number == number), None)


def _channel(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    t = s.tvs[tv]
    if t.power == "off" or t.input != "antenna":
        return None
    entry = rng.choice([c for c in _allowed_channels(s, t) if c.number != t.channel])
    n, c = _w(tv), entry.number
    direct = [f"put the {n} tv on channel {c}", f"switch the {n} tv to channel {c}"]
    indirect = [f"put channel {c} on the {n} tv so I can catch {entry.now_showing}"]
    return _ask(tv, {"content"}, direct, indirect, ("set_channel", {"tv": tv, "channel": c}))


def _switch_and_tune(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    """Two dependent calls: switch to the antenna, then tune (compositional chains only)."""
    t = s.tvs[tv]
    if t.power == "off" or t.input == "antenna" or t.child_lock == "on":
        return None
    entry = rng.choice([c for c in s.guide if c.number != t.channel])
    n, c = _w(tv), entry.number
    direct = [f"switch the {n} tv to the antenna and put on channel {c}", f"set the {n} tv to antenna, channel {c}"]
    indirect = [f"move the {n} tv over to the antenna and tune to channel {c} for {entry.now_showing}"]
    gold = (("set_input", {"tv": tv, "input": "antenna"}), ("set_channel", {"tv": tv, "channel": c}))
    return _ask(tv, {"content"}, direct, indirect, *gold)


_APP_GOAL = {
    "streamflix": "so we can watch a film",
    "vidtube": "because I want to watch some clips",
    "sportszone": "because the match is about to start",
    "kidsworld": "so the children can watch their cartoons",
    "newsnow": "so I can catch up on the news",
    "musicbox": "so we have some music videos on",
}


def _app(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    t = s.tvs[tv]
    if t.power == "off":
        return None
    choices = [a for a in _allowed_apps(t) if a != t.app or t.input != "apps" or t.playback != "playing"]
    if not choices:
        return None
    app, n = rng.choice(choices), _w(tv)
    direct = [f"open {app} on the {n} tv", f"launch the {app} app on the {n} tv"]
    indirect = [f"start {app} on the {n} tv {_APP_GOAL[app]}"]
    return _ask(tv, {"content"}, direct, indirect, ("launch_app", {"tv": tv, "app": app}))


def _pause(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    t = s.tvs[tv]
    if t.power == "off" or t.input != "apps" or t.playback != "playing":
        return None
    n = _w(tv)
    direct = [f"pause the {n} tv", f"pause what's playing on the {n} tv"]
    indirect = [f"hold the show on the {n} tv for a minute because the doorbell just rang"]
    return _ask(tv, {"content"}, direct, indirect, ("pause", {"tv": tv}))


def _resume(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    t = s.tvs[tv]
    if t.power == "off" or t.input != "apps" or t.playback != "paused":
        return None
    n = _w(tv)
    direct = [f"resume the {n} tv", f"unpause the show on the {n} tv"]
    indirect = [f"carry on with the show on the {n} tv now that I'm back"]
    return _ask(tv, {"content"}, direct, indirect, ("resume", {"tv": tv}))


def _volume(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    t = s.tvs[tv]
    if t.power == "off" or t.mute == "muted":
        return None
    level = rng.choice([v for v in range(5, 96, 5) if v != t.volume])
    n = _w(tv)
    direct = [f"set the {n} tv volume to {level}", f"change the volume on the {n} tv to {level}"]
    if level > t.volume:
        indirect = [f"turn the {n} tv up to {level} because I can't hear the dialogue"]
    else:
        indirect = [f"bring the {n} tv down to {level} since it is far too loud"]
    return _ask(tv, {"volume"}, direct, indirect, ("set_volume", {"tv": tv, "volume": level}))


def _mute(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    t = s.tvs[tv]
    if t.power == "off":
        return None
    n = _w(tv)
    if t.mute == "unmuted":
        direct = [f"mute the {n} tv", f"set the {n} tv to muted"]
        indirect = [f"mute the {n} tv while I take this phone call"]
        return _ask(tv, {"volume"}, direct, indirect, ("set_mute", {"tv": tv, "mute": "muted"}))
    direct = [f"unmute the {n} tv", f"set the {n} tv to unmuted"]
    indirect = [f"unmute the {n} tv because I want to hear it again"]
    return _ask(tv, {"volume"}, direct, indirect, ("set_mute", {"tv": tv, "mute": "unmuted"}))


def _unmute_and_volume(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    """Two dependent calls: unmute, then set the volume (compositional chains only)."""
    t = s.tvs[tv]
    if t.power == "off" or t.mute == "unmuted":
        return None
    level, n = rng.choice([v for v in range(5, 96, 5) if v != t.volume]), _w(tv)
    direct = [f"unmute the {n} tv and set it to volume {level}", f"unmute the {n} tv, then make the volume {level}"]
    indirect = [f"unmute the {n} tv and bring the volume to {level} so we can hear it again"]
    gold = (("set_mute", {"tv": tv, "mute": "unmuted"}), ("set_volume", {"tv": tv, "volume": level}))
    return _ask(tv, {"volume"}, direct, indirect, *gold)


_MODE_GOAL = {
    "standard": "put the {n} tv back to the standard picture mode because the colours look odd",
    "cinema": "use the cinema picture mode on the {n} tv since we're settling in for a film",
    "vivid": "switch the {n} tv to vivid mode because the picture looks dull",
    "game": "set the {n} tv to game mode because I'm about to play on the console",
    "sports": "put the {n} tv in sports mode since the match is starting",
}


def _mode(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    t = s.tvs[tv]
    if t.power == "off":
        return None
    mode, n = rng.choice([m for m in PICTURE_MODES if m != t.picture_mode]), _w(tv)
    direct = [f"set the {n} tv picture mode to {mode}", f"switch the {n} tv to {mode} mode"]
    indirect = [_MODE_GOAL[mode].format(n=n)]
    return _ask(tv, {"mode"}, direct, indirect, ("set_mode", {"tv": tv, "mode": mode}))


def _subtitles(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    t = s.tvs[tv]
    if t.power == "off":
        return None
    value, n = rng.choice([x for x in SUBTITLES if x != t.subtitles]), _w(tv)
    if value == "off":
        direct = [f"turn the subtitles off on the {n} tv", f"set the {n} tv subtitles to off"]
        indirect = [f"get rid of the text on the {n} tv by setting the subtitles off"]
    else:
        direct = [f"turn on {value} subtitles on the {n} tv", f"set the {n} tv subtitles to {value}"]
        indirect = [f"put {value} subtitles on the {n} tv so our guest can follow along"]
    return _ask(tv, {"subtitles"}, direct, indirect, ("set_subtitles", {"tv": tv, "subtitles": value}))


def _timer(rng: random.Random, s: TvState, tv: TvName) -> Ask | None:
    t = s.tvs[tv]
    if t.power == "off":
        return None
    minutes, n = rng.choice([m for m in (15, 30, 45, 60, 90, 120) if m != t.sleep_timer_min]), _w(tv)
    direct = [f"set a sleep timer for {minutes} minutes on the {n} tv", f"set the {n} tv sleep timer to {minutes} min"]
    indirect = [f"let the {n} tv switch itself off after {minutes} minutes in case I fall asleep"]
    return _ask(tv, {"timer"}, direct, indirect, ("set_timer", {"tv": tv, "minutes": minutes}))


def _child_lock(rng: random.Random, s: TvState, tv: TvName) -> Ask:
    t, n = s.tvs[tv], _w(tv)
    if t.child_lock == "off":
        direct = [f"turn the child lock on for the {n} tv", f"set the {n} tv child lock to on"]
        indirect = [f"switch the child lock on for the {n} tv because the kids will be using it"]
        return _ask(tv, {"lock", "content"}, direct, indirect, ("set_child_lock", {"tv": tv, "lock": "on"}))
    direct = [f"turn the child lock off for the {n} tv", f"set the {n} tv child lock to off"]
    indirect = [f"switch the child lock off on the {n} tv since the kids are in bed"]
    return _ask(tv, {"lock", "content"}, direct, indirect, ("set_child_lock", {"tv": tv, "lock": "off"}))


SINGLE_ATOMS: tuple[Atom, ...] = (
    _power,
    _input,
    _channel,
    _channel,
    _app,
    _app,
    _pause,
    _resume,
    _volume,
    _volume,
    _mute,
    _mode,
    _mode,
    _subtitles,
    _subtitles,
    _timer,
    _child_lock,
)
"""One-call asks, weighted by repetition (power and child lock changes are rarer)."""
CHAIN_ATOMS: tuple[Atom, ...] = tuple(a for a in SINGLE_ATOMS if a not in (_power, _child_lock)) + (
    _switch_and_tune,
    _unmute_and_volume,
)
"""Asks that may follow in a chain on one set (the two-call asks only make sense there)."""


# --- questions (one read) ----------------------------------------------------------------------


def _question(rng: random.Random, s: TvState) -> Request:
    topic = rng.choice(("watching", "volume", "picture", "subtitles", "guide", "guide", "apps"))
    if topic == "guide":
        genre = rng.choice(GENRES)
        return request(
            [f"what's on the {genre} channels right now?", f"list the {genre} channels in the guide"],
            [f"check the guide for {genre} channels so I can find something to watch"],
            ("get_guide", {"genre": genre}),
        )
    tv = rng.choice(TVS)
    n = _w(tv)
    if topic == "apps":
        return request(
            [f"which apps are on the {n} tv?", f"list the apps installed on the {n} tv"],
            [f"tell me which apps the {n} tv has so I can plan movie night"],
            ("list_apps", {"tv": tv}),
        )
    direct, indirect = {
        "watching": (
            [f"what is the {n} tv showing?", f"what's on the {n} tv at the moment?"],
            [f"check what the {n} tv is on because I can hear it from the hallway"],
        ),
        "volume": (
            [f"how loud is the {n} tv?", f"what volume is the {n} tv at?"],
            [f"tell me the {n} tv volume so I know whether it will wake anyone"],
        ),
        "picture": (
            [f"which picture mode is the {n} tv in?", f"what picture mode is the {n} tv using?"],
            [f"tell me the picture mode of the {n} tv because the colours look strange"],
        ),
        "subtitles": (
            [f"are subtitles on for the {n} tv?", f"which subtitles does the {n} tv show?"],
            [f"check the subtitle setting of the {n} tv for our guest"],
        ),
    }[topic]
    return request(direct, indirect, ("get_status", {"tv": tv}))


# --- compositional: reads whose replies supply later values -------------------------------------


def _on_tvs(s: TvState) -> list[TvName]:
    return [t for t in TVS if s.tvs[t].power == "on"]


def _guide_lookup(rng: random.Random, s: TvState) -> Request | None:
    tv = rng.choice(_on_tvs(s))
    t = s.tvs[tv]
    entry = rng.choice(_allowed_channels(s, t))
    if t.channel == entry.number:
        return None
    if t.input != "antenna" and t.child_lock == "on" and _genre_of(s, t.channel) != "kids":
        return None
    switch = [("set_input", {"tv": tv, "input": "antenna"})] if t.input != "antenna" else []
    n, g, show = _w(tv), entry.genre, entry.now_showing
    return request(
        [f"find the {g} channel showing {show} and put it on the {n} tv", f"put {show} on the {n} tv, it's a {g} show"],
        [f"look up which {g} channel has {show} and tune the {n} tv to it because I don't want to miss it"],
        ("get_guide", {"genre": g}),
        *switch,
        ("set_channel", {"tv": tv, "channel": entry.number}),
    )


def _match_volume(rng: random.Random, s: TvState) -> Request | None:
    tv, other = rng.sample(TVS, 2)
    t, o = s.tvs[tv], s.tvs[other]
    if t.power == "off" or t.mute == "muted" or o.volume == t.volume:
        return None
    n, m = _w(tv), _w(other)
    return request(
        [f"set the {n} tv volume to match the {m} tv", f"make the {n} tv as loud as the {m} tv"],
        [f"bring the {n} tv to the same volume as the {m} tv since that one sounds right"],
        ("get_status", {"tv": other}),
        ("set_volume", {"tv": tv, "volume": o.volume}),
    )


def _copy_channel(rng: random.Random, s: TvState) -> Request | None:
    tv, other = rng.sample(TVS, 2)
    t, o = s.tvs[tv], s.tvs[other]
    if t.power == "off" or o.power == "off" or o.input != "antenna":
        return None
    if t.channel == o.channel:
        return None
    if t.child_lock == "on" and (_genre_of(s, o.channel) != "kids" or _genre_of(s, t.channel) != "kids"):
        return None
    switch = [("set_input", {"tv": tv, "input": "antenna"})] if t.input != "antenna" else []
    n, m = _w(tv), _w(other)
    return request(
        [f"put the {n} tv on the same channel as the {m} tv", f"tune the {n} tv to whatever the {m} tv is showing"],
        [f"show the same channel on the {n} tv as on the {m} tv since I'm moving over there"],
        ("get_status", {"tv": other}),
        *switch,
        ("set_channel", {"tv": tv, "channel": o.channel}),
    )


def _app_choice(rng: random.Random, s: TvState) -> Request | None:
    tv = rng.choice(_on_tvs(s))
    t = s.tvs[tv]
    allowed = [a for a in _allowed_apps(t) if a != t.app or t.input != "apps" or t.playback != "playing"]
    missing = [a for a in APPS if a not in t.installed_apps]
    if not allowed or not missing:
        return None
    app, absent = rng.choice(allowed), rng.choice(missing)
    pair = " or ".join(sorted((app, absent), key=lambda _: rng.random()))
    n = _w(tv)
    return request(
        [f"open whichever of {pair} is installed on the {n} tv", f"launch {pair} on the {n} tv, whichever is there"],
        [f"start {pair} on the {n} tv, whichever one it has, so we can watch something"],
        ("list_apps", {"tv": tv}),
        ("launch_app", {"tv": tv, "app": app}),
    )


def _conditional(rng: random.Random, s: TvState) -> Request | None:
    tv = rng.choice(_on_tvs(s))
    t, n = s.tvs[tv], _w(tv)
    read = ("get_status", {"tv": tv})
    options = []
    if t.input == "apps" and t.playback == "playing":
        options.append(
            request(
                [f"if an app is playing on the {n} tv, pause it", f"check the {n} tv and pause it if a show plays"],
                [f"pause the {n} tv if a show is playing because dinner is ready"],
                read,
                ("pause", {"tv": tv}),
            )
        )
    if t.input == "apps" and t.playback == "paused":
        options.append(
            request(
                [f"if the {n} tv is paused, resume it", f"check the {n} tv and resume it if it is paused"],
                [f"carry on with the {n} tv show if it was left paused now that we're back"],
                read,
                ("resume", {"tv": tv}),
            )
        )
    if t.mute == "muted":
        options.append(
            request(
                [f"if the {n} tv is muted, unmute it", f"check whether the {n} tv is muted and unmute it if so"],
                [f"unmute the {n} tv if someone left it muted because I want to hear the show"],
                read,
                ("set_mute", {"tv": tv, "mute": "unmuted"}),
            )
        )
    return rng.choice(options) if options else None


# --- assembling tasks --------------------------------------------------------------------------

SIM = Simulator(OPERATIONS)


def _compound(rng: random.Random, s: TvState, size: int) -> list[Request] | None:
    """``size`` independent one-call asks on the fresh world (no two touch a setting of one tv)."""
    return requests_of(compound(lambda _: rng.choice(SINGLE_ATOMS)(rng, s, rng.choice(TVS)), size, tries=40 * size))


def _chain(rng: random.Random, s: TvState, first: Ask, calls: int) -> list[Request] | None:
    """``first`` on its tv, then asks on the state it leaves until the gold has ``calls`` calls."""
    return extend(SIM, s, first, lambda after: rng.choice(CHAIN_ATOMS)(rng, after, first.tv), calls)


def _power_chain(rng: random.Random, s: TvState, calls: int) -> list[Request] | None:
    off = [u for u in TVS if s.tvs[u].power == "off"]
    first = _power(rng, s, rng.choice(off))
    return _chain(rng, s, Ask(first.request, first.tv, frozenset({"power"})), calls)


def _dependent_chain(rng: random.Random, s: TvState, calls: int) -> list[Request] | None:
    tv = rng.choice(_on_tvs(s))
    first = rng.choice((_switch_and_tune, _unmute_and_volume))(rng, s, tv)
    return None if first is None else _chain(rng, s, first, calls)


COMPOUND_SIZES = (2,) * 14 + (3,) * 24 + (4,) * 24 + (5,) * 12
POWER_CHAIN_CALLS = (2, 3, 4, 5, 6)
"""Gold lengths of the power chains (up to 6: under ``transaction`` the oracle needs three turns a call
plus one to answer, 19 turns, within the episode limit of 20)."""
DEPENDENT_CHAIN_CALLS = (2, 3, 4, 5, 3)
SINGLE_WRITES = 20
QUESTIONS = 8
READ_THEN_WRITE: tuple[tuple[str, Callable[[random.Random, TvState], Request | None], int], ...] = (
    ("guide_lookup", _guide_lookup, 4),
    ("match_volume", _match_volume, 2),
    ("copy_channel", _copy_channel, 2),
    ("app_choice", _app_choice, 3),
    ("conditional", _conditional, 3),
)
"""Compositional templates whose first call is a read: (template, builder, drafts per seed)."""


def drafts(state: TvState, world_seed: int) -> list[TaskDraft]:
    """Every task on the fresh world ``state`` of ``world_seed``: about 126 drafts, deterministic.

    The task RNG is seeded from ``world_seed`` but distinct from the world's own RNG stream.
    """
    rng = random.Random(f"tv/tasks/{world_seed}")
    out = Drafts(rng)
    out.fill("question", lambda: _question(rng, state), QUESTIONS)
    out.fill("single", lambda: _compound(rng, state, 1), SINGLE_WRITES)
    for size in sorted(set(COMPOUND_SIZES)):
        out.fill("compound", lambda size=size: _compound(rng, state, size), COMPOUND_SIZES.count(size))
    for calls in POWER_CHAIN_CALLS:
        out.fill("power_chain", lambda calls=calls: _power_chain(rng, state, calls), 1, "compositional")
    for calls in DEPENDENT_CHAIN_CALLS:
        out.fill("dependent_chain", lambda calls=calls: _dependent_chain(rng, state, calls), 1, "compositional")
    for template, build, count in READ_THEN_WRITE:
        out.fill(template, lambda build=build: build(rng, state), count, "compositional")
    # A world where some template finds too little to work with gets more of the others.
    target = len(POWER_CHAIN_CALLS) + len(DEPENDENT_CHAIN_CALLS) + sum(count for _, _, count in READ_THEN_WRITE)
    for template, build, _ in READ_THEN_WRITE * 3:
        if out.count("compositional") < target:
            out.fill(template, lambda build=build: build(rng, state), 1, "compositional")
    return out.items
