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

from toolprism.domains._asks import AskKind
from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import Simulator, flip, other
from toolprism.domains._fleet import Atom, DeviceAsk, Devices, device_ask
from toolprism.domains._grammar import replied, slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains._plan import Builder, draft_plan
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
from toolprism.schema import JSON

ALL_SLOTS = frozenset({"power", "content", "volume", "mode", "subtitles", "timer", "lock"})


def _allowed_channels(s: TvState, t: Television) -> list[GuideChannel]:
    return [c for c in s.guide if t.child_lock == "off" or c.genre == "kids"]


def _allowed_apps(t: Television) -> list[str]:
    return [a for a in t.installed_apps if t.child_lock == "off" or a == KIDS_APP]


# --- ask kinds: one write on one set -----------------------------------------------------------

POWER = AskKind(
    "set_power",
    ("turn {power} the {tv} tv", "switch the {tv} television {power}"),
    {
        "on": ("get the {tv} tv going by switching it {power}", "switch the {tv} tv {power} because I want to watch"),
        "off": (
            "switch the {tv} tv {power} since nobody is watching it",
            "save some power and turn the {tv} tv {power}",
        ),
    },
    key="power",
)
INPUT = AskKind(
    "set_input",
    ("switch the {tv} tv to {input}", "set the {tv} tv input to {input}"),
    {
        "hdmi1": "switch the {tv} tv to {input} because the console is plugged in there",
        "hdmi2": "put the {tv} tv on {input} so I can watch from the laptop",
        "antenna": "switch the {tv} tv back to the {input} for regular broadcast channels",
    },
    key="input",
)
CHANNEL = AskKind(
    "set_channel",
    ("put the {tv} tv on channel {channel}", "switch the {tv} tv to channel {channel}"),
    "put channel {channel} on the {tv} tv so I can catch {show}",
)
APP = AskKind(
    "launch_app",
    ("open {app} on the {tv} tv", "launch the {app} app on the {tv} tv"),
    "start {app} on the {tv} tv {goal}",
)
_APP_GOAL = {
    "streamflix": "so we can watch a film",
    "vidtube": "because I want to watch some clips",
    "sportszone": "because the match is about to start",
    "kidsworld": "so the children can watch their cartoons",
    "newsnow": "so I can catch up on the news",
    "musicbox": "so we have some music videos on",
}
PAUSE = AskKind(
    "pause",
    ("pause the {tv} tv", "pause what's playing on the {tv} tv"),
    "hold the show on the {tv} tv for a minute because the doorbell just rang",
)
RESUME = AskKind(
    "resume",
    ("resume the {tv} tv", "unpause the show on the {tv} tv"),
    "carry on with the show on the {tv} tv now that I'm back",
)
MUTE = AskKind(
    "set_mute",
    {
        "muted": ("{mute:mute} the {tv} tv", "set the {tv} tv to {mute}"),
        "unmuted": ("{mute:unmute} the {tv} tv", "set the {tv} tv to {mute}"),
    },
    {
        "muted": "{mute:mute} the {tv} tv while I take this phone call",
        "unmuted": "{mute:unmute} the {tv} tv because I want to hear it again",
    },
    key="mute",
)
MODE = AskKind(
    "set_mode",
    ("set the {tv} tv picture mode to {mode}", "switch the {tv} tv to {mode} mode"),
    {
        "standard": "put the {tv} tv back to the {mode} picture mode because the colours look odd",
        "cinema": "use the {mode} picture mode on the {tv} tv since we're settling in for a film",
        "vivid": "switch the {tv} tv to {mode} mode because the picture looks dull",
        "game": "set the {tv} tv to {mode} mode because I'm about to play on the console",
        "sports": "put the {tv} tv in {mode} mode since the match is starting",
    },
    key="mode",
)
SUBTITLE = AskKind(
    "set_subtitles",
    {
        "off": ("turn the subtitles {subtitles} on the {tv} tv", "set the {tv} tv subtitles to {subtitles}"),
        None: ("turn on {subtitles} subtitles on the {tv} tv", "set the {tv} tv subtitles to {subtitles}"),
    },
    {
        "off": "get rid of the text on the {tv} tv by setting the subtitles {subtitles}",
        None: "put {subtitles} subtitles on the {tv} tv so our guest can follow along",
    },
    key="subtitles",
)
TIMER = AskKind(
    "set_timer",
    ("set a sleep timer for {minutes} minutes on the {tv} tv", "set the {tv} tv sleep timer to {minutes} min"),
    "let the {tv} tv switch itself off after {minutes} minutes in case I fall asleep",
    key="minutes",
)
LOCK = AskKind(
    "set_child_lock",
    ("turn the child lock {lock} for the {tv} tv", "set the {tv} tv child lock to {lock}"),
    {
        "on": "switch the child lock {lock} for the {tv} tv because the kids will be using it",
        "off": "switch the child lock {lock} on the {tv} tv since the kids are in bed",
    },
    key="lock",
)


# --- atoms: one write on one set, phrased from its current state --------------------------------


def _power(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk:
    return DeviceAsk(POWER.request(tv=tv, power=flip(s.tvs[tv].power)), tv, ALL_SLOTS)


def _input(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    t = s.tvs[tv]
    if t.power == "off":
        return None
    choices = [i for i in INPUT.indirect if i != t.input]
    if t.child_lock == "on" and _genre_of(s, t.channel) != "kids":
        choices = [i for i in choices if i != "antenna"]
    return device_ask(tv, {"content"}, INPUT.request(tv=tv, input=rng.choice(choices)))


def _genre_of(s: TvState, number: int) -> str | None:
    return next((c.genre for c in s.guide if c.number == number), None)


def _channel(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    t = s.tvs[tv]
    if t.power == "off" or t.input != "antenna":
        return None
    entry = rng.choice([c for c in _allowed_channels(s, t) if c.number != t.channel])
    return device_ask(tv, {"content"}, CHANNEL.request({"show": entry.now_showing}, tv=tv, channel=entry.number))


def _switch_and_tune(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    """Two dependent calls: switch to the antenna, then tune (compositional chains only)."""
    t = s.tvs[tv]
    if t.power == "off" or t.input == "antenna" or t.child_lock == "on":
        return None
    entry = rng.choice([c for c in s.guide if c.number != t.channel])
    n, c, a = slot(tv), slot(entry.number), slot("antenna")
    direct = [f"switch the {n} tv to the {a} and put on channel {c}", f"set the {n} tv to {a}, channel {c}"]
    indirect = [f"move the {n} tv over to the {a} and tune to channel {c} for {entry.now_showing}"]
    gold = (("set_input", {"tv": tv, "input": "antenna"}), ("set_channel", {"tv": tv, "channel": entry.number}))
    return device_ask(tv, {"content"}, request(direct, indirect, *gold))


def _app(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    t = s.tvs[tv]
    if t.power == "off":
        return None
    choices = [a for a in _allowed_apps(t) if a != t.app or t.input != "apps" or t.playback != "playing"]
    if not choices:
        return None
    app = rng.choice(choices)
    return device_ask(tv, {"content"}, APP.request({"goal": _APP_GOAL[app]}, tv=tv, app=app))


def _pause(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    t = s.tvs[tv]
    if t.power == "off" or t.input != "apps" or t.playback != "playing":
        return None
    return device_ask(tv, {"content"}, PAUSE.request(tv=tv))


def _resume(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    t = s.tvs[tv]
    if t.power == "off" or t.input != "apps" or t.playback != "paused":
        return None
    return device_ask(tv, {"content"}, RESUME.request(tv=tv))


def _volume(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    t = s.tvs[tv]
    if t.power == "off" or t.mute == "muted":
        return None
    level = other(rng, range(5, 96, 5), t.volume)
    n, v = slot(tv), slot(level)
    direct = [f"set the {n} tv volume to {v}", f"change the volume on the {n} tv to {v}"]
    if level > t.volume:
        indirect = [f"turn the {n} tv up to {v} because I can't hear the dialogue"]
    else:
        indirect = [f"bring the {n} tv down to {v} since it is far too loud"]
    return device_ask(tv, {"volume"}, request(direct, indirect, ("set_volume", {"tv": tv, "volume": level})))


def _mute(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    t = s.tvs[tv]
    if t.power == "off":
        return None
    return device_ask(tv, {"volume"}, MUTE.request(tv=tv, mute="muted" if t.mute == "unmuted" else "unmuted"))


def _unmute_and_volume(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    """Two dependent calls: unmute, then set the volume (compositional chains only)."""
    t = s.tvs[tv]
    if t.power == "off" or t.mute == "unmuted":
        return None
    level = other(rng, range(5, 96, 5), t.volume)
    n, v, u = slot(tv), slot(level), slot("unmuted", "unmute")
    direct = [f"{u} the {n} tv and set it to volume {v}", f"{u} the {n} tv, then make the volume {v}"]
    indirect = [f"{u} the {n} tv and bring the volume to {v} so we can hear it again"]
    gold = (("set_mute", {"tv": tv, "mute": "unmuted"}), ("set_volume", {"tv": tv, "volume": level}))
    return device_ask(tv, {"volume"}, request(direct, indirect, *gold))


def _mode(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    t = s.tvs[tv]
    return None if t.power == "off" else device_ask(tv, {"mode"}, MODE.draw(rng, PICTURE_MODES, t.picture_mode, tv=tv))


def _subtitles(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    t = s.tvs[tv]
    if t.power == "off":
        return None
    return device_ask(tv, {"subtitles"}, SUBTITLE.draw(rng, SUBTITLES, t.subtitles, tv=tv))


def _timer(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk | None:
    t = s.tvs[tv]
    if t.power == "off":
        return None
    return device_ask(tv, {"timer"}, TIMER.draw(rng, (15, 30, 45, 60, 90, 120), t.sleep_timer_min, tv=tv))


def _child_lock(rng: random.Random, s: TvState, tv: TvName) -> DeviceAsk:
    lock = flip(s.tvs[tv].child_lock)
    return DeviceAsk(LOCK.request(tv=tv, lock=lock), tv, frozenset({"lock", "content"}))


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
DEVICES = Devices(
    simulator=Simulator(OPERATIONS),
    names=TVS,
    singles=SINGLE_ATOMS,
    chained=CHAIN_ATOMS,
    power=_power,
    powered_off=lambda s: [u for u in TVS if s.tvs[u].power == "off"],
)


# --- questions (one read) ----------------------------------------------------------------------

QUESTIONS_BY_TOPIC = {
    "guide": AskKind(
        "get_guide",
        ("what's on the {genre} channels right now?", "list the {genre} channels in the guide"),
        "check the guide for {genre} channels so I can find something to watch",
    ),
    "apps": AskKind(
        "list_apps",
        ("which apps are on the {tv} tv?", "list the apps installed on the {tv} tv"),
        "tell me which apps the {tv} tv has so I can plan movie night",
    ),
    "watching": AskKind(
        "get_status",
        ("what is the {tv} tv showing?", "what's on the {tv} tv at the moment?"),
        "check what the {tv} tv is on because I can hear it from the hallway",
    ),
    "volume": AskKind(
        "get_status",
        ("how loud is the {tv} tv?", "what volume is the {tv} tv at?"),
        "tell me the {tv} tv volume so I know whether it will wake anyone",
    ),
    "picture": AskKind(
        "get_status",
        ("which picture mode is the {tv} tv in?", "what picture mode is the {tv} tv using?"),
        "tell me the picture mode of the {tv} tv because the colours look strange",
    ),
    "subtitles": AskKind(
        "get_status",
        ("are subtitles on for the {tv} tv?", "which subtitles does the {tv} tv show?"),
        "check the subtitle setting of the {tv} tv for our guest",
    ),
}


def _question(rng: random.Random, s: TvState) -> Request:
    topic = rng.choice(("watching", "volume", "picture", "subtitles", "guide", "guide", "apps"))
    if topic == "guide":
        return QUESTIONS_BY_TOPIC[topic].request(genre=rng.choice(GENRES))
    return QUESTIONS_BY_TOPIC[topic].request(tv=rng.choice(TVS))


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
    switch = [("set_input", {"tv": tv, "input": replied("antenna")})] if t.input != "antenna" else []
    n, g, show = slot(tv), slot(entry.genre), entry.now_showing
    return request(
        [f"find the {g} channel showing {show} and put it on the {n} tv", f"put {show} on the {n} tv, it's a {g} show"],
        [f"look up which {g} channel has {show} and tune the {n} tv to it because I don't want to miss it"],
        ("get_guide", {"genre": entry.genre}),
        *switch,
        ("set_channel", {"tv": tv, "channel": replied(entry.number)}),
    )


def _match_volume(rng: random.Random, s: TvState) -> Request | None:
    tv, other = rng.sample(TVS, 2)
    t, o = s.tvs[tv], s.tvs[other]
    if t.power == "off" or t.mute == "muted" or o.volume == t.volume:
        return None
    n, m = slot(tv), slot(other)
    return request(
        [f"set the {n} tv volume to match the {m} tv", f"make the {n} tv as loud as the {m} tv"],
        [f"bring the {n} tv to the same volume as the {m} tv since that one sounds right"],
        ("get_status", {"tv": other}),
        ("set_volume", {"tv": tv, "volume": replied(o.volume)}),
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
    switch = [("set_input", {"tv": tv, "input": replied("antenna")})] if t.input != "antenna" else []
    n, m = slot(tv), slot(other)
    return request(
        [f"put the {n} tv on the same channel as the {m} tv", f"tune the {n} tv to whatever the {m} tv is showing"],
        [f"show the same channel on the {n} tv as on the {m} tv since I'm moving over there"],
        ("get_status", {"tv": other}),
        *switch,
        ("set_channel", {"tv": tv, "channel": replied(o.channel)}),
    )


def _app_choice(rng: random.Random, s: TvState) -> Request | None:
    tv = rng.choice(_on_tvs(s))
    t = s.tvs[tv]
    allowed = [a for a in _allowed_apps(t) if a != t.app or t.input != "apps" or t.playback != "playing"]
    missing = [a for a in APPS if a not in t.installed_apps]
    if not allowed or not missing:
        return None
    app, absent = rng.choice(allowed), rng.choice(missing)
    pair = " or ".join(sorted((slot(app), absent), key=lambda _: rng.random()))
    n = slot(tv)
    return request(
        [f"open whichever of {pair} is installed on the {n} tv", f"launch {pair} on the {n} tv, whichever is there"],
        [f"start {pair} on the {n} tv, whichever one it has, so we can watch something"],
        ("list_apps", {"tv": tv}),
        ("launch_app", {"tv": tv, "app": app}),
    )


CONDITIONAL: tuple[tuple[Callable[[Television], bool], AskKind, dict[str, JSON]], ...] = (
    (
        lambda t: t.input == "apps" and t.playback == "playing",
        AskKind(
            "pause",
            ("if an app is playing on the {tv} tv, pause it", "check the {tv} tv and pause it if a show plays"),
            "pause the {tv} tv if a show is playing because dinner is ready",
        ),
        {},
    ),
    (
        lambda t: t.input == "apps" and t.playback == "paused",
        AskKind(
            "resume",
            ("if the {tv} tv is paused, resume it", "check the {tv} tv and resume it if it is paused"),
            "carry on with the {tv} tv show if it was left paused now that we're back",
        ),
        {},
    ),
    (
        lambda t: t.mute == "muted",
        AskKind(
            "set_mute",
            (
                "if the {tv} tv is muted, {mute:unmute} it",
                "check whether the {tv} tv is muted and {mute:unmute} it if so",
            ),
            "{mute:unmute} the {tv} tv if someone left it muted because I want to hear the show",
        ),
        {"mute": "unmuted"},
    ),
)
"""Conditional asks: (when the set calls for it, the ask, its arguments besides ``tv``), posed
after reading the set's status."""


def _conditional(rng: random.Random, s: TvState) -> Request | None:
    tv = rng.choice(_on_tvs(s))
    read = ("get_status", {"tv": tv})
    options = [ask.after(read, tv=tv, **args) for applies, ask, args in CONDITIONAL if applies(s.tvs[tv])]
    return rng.choice(options) if options else None


# --- assembling tasks --------------------------------------------------------------------------

READ_THEN_WRITE: tuple[tuple[str, Builder, int], ...] = (
    ("guide_lookup", _guide_lookup, 4),
    ("match_volume", _match_volume, 2),
    ("copy_channel", _copy_channel, 2),
    ("app_choice", _app_choice, 3),
    ("conditional", _conditional, 3),
)
"""Compositional templates whose first call is a read: (template, builder, drafts per seed)."""
PLAN = DEVICES.plan(
    _question, ("dependent_chain", (_switch_and_tune, _unmute_and_volume)), READ_THEN_WRITE, power_calls=(2, 3, 4, 5, 6)
)
"""Drafts per seed (see :meth:`~toolprism.domains._fleet.Devices.plan`)."""


def drafts(state: TvState, world_seed: int) -> list[TaskDraft]:
    """Every task on the fresh world ``state`` of ``world_seed``: about 126 drafts, deterministic.

    The task RNG is seeded from ``world_seed`` but distinct from the world's own RNG stream.
    """
    return draft_plan(random.Random(f"tv/tasks/{world_seed}"), state, PLAN, top_up=3)
