"""Task templates of the media-player domain.

Everything a user may ask is an *ask*: a :class:`~toolprism.domains._phrasing.Request` phrased
from the current state of one zone (a louder or quieter wording depending on the current volume,
a value always different from the current one), plus the settings it touches. Tasks are built
from asks:

- ``question`` and ``single``: one read, or one write on the fresh world;
- ``compound``: 2-5 asks on the fresh world that touch different settings, so any order works;
- compositional templates: a chain on one zone where later asks need earlier ones (turn on,
  then set; switch to streaming, then play; checked on a simulated copy of the world), or a read
  whose reply supplies a later value (match another zone, a favourite, a preset's level, a
  condition on the state).

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
from toolprism.domains.media_player._ops import OPERATIONS
from toolprism.domains.media_player._state import (
    BANDS,
    ORDERS,
    PATIO_MAX_VOLUME,
    PLAYLISTS,
    PRESETS,
    STATIONS,
    ZONES,
    MediaState,
    Zone,
)

ALL_SLOTS = frozenset({"power", "volume", "bass", "treble", "playback", "repeat", "timer"})


@dataclass(frozen=True)
class Ask:
    """A request on one zone and the zone settings it touches (asks sharing none are independent)."""

    request: Request
    zone: Zone
    slots: frozenset[str]

    def independent_of(self, other: Ask) -> bool:
        return self.zone != other.zone or not self.slots & other.slots


Atom = Callable[[random.Random, MediaState, Zone], Ask | None]


def _w(name: str) -> str:
    return name.replace("_", " ")


def _ask(zone: Zone, slots: set[str] | frozenset[str], direct: list[str], indirect: list[str], *gold) -> Ask:
    return Ask(request(direct, indirect, *gold), zone, frozenset(slots))


def _volume_cap(zone: Zone) -> int:
    return PATIO_MAX_VOLUME if zone == "patio" else 100


# --- atoms: one write on one zone, phrased from its current state ------------------------------


def _power(rng: random.Random, s: MediaState, zone: Zone) -> Ask:
    z = _w(zone)
    if s.zones[zone].power == "off":
        direct = [f"turn on the {z} player", f"switch the {z} speakers on"]
        indirect = [
            f"switch the {z} player on because I want some music in there",
            f"get some music going in the {z} by turning its player on",
        ]
        return _ask(zone, ALL_SLOTS, direct, indirect, ("set_power", {"zone": zone, "power": "on"}))
    direct = [f"turn off the {z} player", f"switch the {z} speakers off"]
    indirect = [
        f"switch the {z} player off since nobody is in there anymore",
        f"let the {z} go quiet and turn its player off",
    ]
    return _ask(zone, ALL_SLOTS, direct, indirect, ("set_power", {"zone": zone, "power": "off"}))


def _volume(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    p = s.zones[zone]
    if p.power == "off":
        return None
    level = rng.choice([v for v in range(10, _volume_cap(zone) + 1, 5) if v != p.volume])
    z = _w(zone)
    direct = [f"set the {z} volume to {level}", f"change the volume in the {z} to {level}%"]
    if level > p.volume:
        indirect = [
            f"bring the {z} up to {level} as I can hardly hear the music in there",
            f"make the {z} louder at {level} percent",
        ]
    else:
        indirect = [
            f"take the {z} down to {level} because it is far too loud",
            f"lower the {z} to {level} so we can hear each other talk",
        ]
    return _ask(zone, {"volume"}, direct, indirect, ("set_volume", {"zone": zone, "volume": level}))


_TONE_GOAL = {
    ("bass", True): "give the {z} more bass at {level} because it sounds thin",
    ("bass", False): "bring the {z} bass down to {level} since it is too boomy",
    ("treble", True): "raise the {z} treble to {level} since it sounds muffled",
    ("treble", False): "lower the {z} treble to {level} because it sounds harsh",
}


def _tone(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    p = s.zones[zone]
    if p.power == "off":
        return None
    band = rng.choice(BANDS)
    current = getattr(p, band)
    level = rng.choice([v for v in range(-8, 9) if v != current])
    z = _w(zone)
    direct = [f"set the {z} {band} to {level}", f"adjust the {band} in the {z} to {level}"]
    indirect = [_TONE_GOAL[band, level > current].format(z=z, level=level)]
    return _ask(zone, {band}, direct, indirect, ("set_tone", {"zone": zone, "band": band, "level": level}))


_SOURCE_GOAL = {
    "streaming": "switch the {z} to streaming so I get my playlists back",
    "radio": "change the {z} to radio so I can hear something live",
    "bluetooth": "put the {z} on bluetooth so I can play something from my phone",
    "aux": "switch the {z} to aux since the record player is plugged in there",
}


def _source(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    p = s.zones[zone]
    if p.power == "off":
        return None
    source = rng.choice([x for x in _SOURCE_GOAL if x != p.source])
    z = _w(zone)
    direct = [f"switch the {z} to {source}", f"set the {z} source to {source}"]
    indirect = [_SOURCE_GOAL[source].format(z=z)]
    return _ask(zone, {"playback", "repeat"}, direct, indirect, ("set_source", {"zone": zone, "source": source}))


_PLAYLIST_GOAL = {
    "morning_coffee": "I'm easing into the day",
    "workout": "I'm about to exercise",
    "dinner_jazz": "dinner is almost ready",
    "deep_focus": "I need to concentrate",
    "road_trip": "I'm packing for a trip",
    "chill_vibes": "I want to unwind",
    "party_mix": "the guests are arriving",
    "sleep_sounds": "I'm getting ready for bed",
}


def _playlist_words(rng: random.Random, s: MediaState, zone: Zone) -> tuple[str, str, str, str, dict] | None:
    """A playlist different from the one the zone plays: (zone, playlist, order words, goal, args)."""
    p = s.zones[zone]
    choices = [x for x in PLAYLISTS if x != p.playlist or p.playback != "playing"]
    playlist, order = rng.choice(choices), rng.choice(ORDERS)
    args = {"zone": zone, "playlist": playlist, "order": order}
    return _w(zone), _w(playlist), _w(order), _PLAYLIST_GOAL[playlist], args


def _playlist(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    p = s.zones[zone]
    if p.power == "off" or p.source != "streaming":
        return None
    z, name, order, goal, args = _playlist_words(rng, s, zone)
    direct = [f"play the {name} playlist in the {z} {order}", f"put on {name} {order} in the {z}"]
    indirect = [f"play {name} {order} in the {z} since {goal}"]
    return _ask(zone, {"playback"}, direct, indirect, ("play_playlist", args))


def _switch_and_play(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    """Two dependent calls: switch to streaming, then play (compositional chains only)."""
    p = s.zones[zone]
    if p.power == "off" or p.source == "streaming":
        return None
    z, name, order, goal, args = _playlist_words(rng, s, zone)
    direct = [
        f"switch the {z} to streaming and play {name} {order}",
        f"change the {z} source to streaming and put on the {name} playlist {order}",
    ]
    indirect = [f"move the {z} over to streaming and play {name} {order} there since {goal}"]
    gold = (("set_source", {"zone": zone, "source": "streaming"}), ("play_playlist", args))
    return _ask(zone, {"playback", "repeat"}, direct, indirect, *gold)


def _station_choice(rng: random.Random, s: MediaState, zone: Zone) -> str:
    p = s.zones[zone]
    return rng.choice([x for x in STATIONS if x != p.station or p.playback != "playing"])


def _radio(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    p = s.zones[zone]
    if p.power == "off" or p.source != "radio":
        return None
    station = _station_choice(rng, s, zone)
    z, name = _w(zone), _w(station)
    direct = [f"tune the {z} to {name}", f"put {name} on in the {z}"]
    indirect = [f"change the station in the {z} to {name} for something different"]
    return _ask(zone, {"playback"}, direct, indirect, ("tune_radio", {"zone": zone, "station": station}))


def _switch_and_tune(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    """Two dependent calls: switch to radio, then tune (compositional chains only)."""
    p = s.zones[zone]
    if p.power == "off" or p.source == "radio":
        return None
    station = _station_choice(rng, s, zone)
    z, name = _w(zone), _w(station)
    direct = [f"switch the {z} to radio and tune it to {name}", f"change the {z} source to radio and put on {name}"]
    indirect = [f"move the {z} over to radio and tune in to {name} because I'd like to hear it"]
    gold = (("set_source", {"zone": zone, "source": "radio"}), ("tune_radio", {"zone": zone, "station": station}))
    return _ask(zone, {"playback", "repeat"}, direct, indirect, *gold)


def _pause(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    p = s.zones[zone]
    if p.power == "off" or p.playback != "playing":
        return None
    z = _w(zone)
    direct = [f"pause the music in the {z}", f"pause the {z}"]
    indirect = [
        f"hold the music in the {z} for now because I have to take a call",
        f"keep my place in the {z} but give me a moment of quiet",
    ]
    return _ask(zone, {"playback"}, direct, indirect, ("pause", {"zone": zone}))


def _resume(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    p = s.zones[zone]
    if p.power == "off" or p.playback != "paused":
        return None
    z = _w(zone)
    direct = [f"resume the music in the {z}", f"unpause the {z}"]
    indirect = [
        f"pick the music in the {z} back up where it left off now that I'm off the phone",
        f"carry on from where the {z} stopped",
    ]
    return _ask(zone, {"playback"}, direct, indirect, ("resume", {"zone": zone}))


_REPEAT_WORDS = {
    "off": (["turn repeat off in the {z}", "set the {z} repeat to off"], "stop the loops in the {z} with repeat off"),
    "one": (["set the {z} to repeat one", "put the {z} on repeat one"], "keep the {z} on this song with repeat one"),
    "all": (["set the {z} to repeat all", "turn on repeat all in the {z}"], "keep the {z} looping with repeat all"),
}


def _repeat(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    p = s.zones[zone]
    if p.power == "off" or p.source != "streaming":
        return None
    mode = rng.choice([m for m in _REPEAT_WORDS if m != p.repeat])
    direct, indirect = _REPEAT_WORDS[mode]
    z = _w(zone)
    return _ask(
        zone,
        {"repeat"},
        [d.format(z=z) for d in direct],
        [indirect.format(z=z)],
        ("set_repeat", {"zone": zone, "repeat": mode}),
    )


_PRESET_GOAL = {
    "party": "switch the {z} to the party preset since we're having people over",
    "late_night": "give the {z} the late night preset because everyone else is asleep",
    "background": "use the background preset in the {z} for some quiet music behind me",
    "voice": "apply the voice preset in the {z} for the talk shows I'm listening to",
    "movie": "apply the movie preset in the {z} since we're watching a film",
}


def _preset(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    p = s.zones[zone]
    if p.power == "off":
        return None
    current = (p.volume, p.bass, p.treble)
    choices = [
        name
        for name in PRESETS
        if (s.presets[name].volume, s.presets[name].bass, s.presets[name].treble) != current
        and s.presets[name].volume <= _volume_cap(zone)
    ]
    preset = rng.choice(choices)
    z = _w(zone)
    direct = [f"apply the {_w(preset)} preset in the {z}", f"use the {_w(preset)} sound preset in the {z}"]
    indirect = [_PRESET_GOAL[preset].format(z=z)]
    slots = {"volume", "bass", "treble"}
    return _ask(zone, slots, direct, indirect, ("apply_preset", {"zone": zone, "preset": preset}))


def _timer(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    p = s.zones[zone]
    if p.power == "off":
        return None
    minutes = rng.choice([m for m in (15, 20, 30, 45, 60, 90) if m != p.sleep_timer_min])
    z = _w(zone)
    direct = [f"set a sleep timer for {minutes} minutes in the {z}", f"set the {z} sleep timer to {minutes} minutes"]
    indirect = [f"let the music in the {z} stop by itself after {minutes} minutes in case I doze off"]
    return _ask(zone, {"timer"}, direct, indirect, ("set_timer", {"zone": zone, "minutes": minutes}))


def _cancel_timer(rng: random.Random, s: MediaState, zone: Zone) -> Ask | None:
    p = s.zones[zone]
    if p.power == "off" or p.sleep_timer_min is None:
        return None
    z = _w(zone)
    direct = [f"cancel the {z} sleep timer", f"clear the sleep timer in the {z}"]
    indirect = [f"stop the {z} from cutting out on me by getting rid of its sleep timer"]
    return _ask(zone, {"timer"}, direct, indirect, ("cancel_timer", {"zone": zone}))


SINGLE_ATOMS: tuple[Atom, ...] = (
    _power,
    _volume,
    _volume,
    _tone,
    _tone,
    _source,
    _playlist,
    _playlist,
    _radio,
    _pause,
    _resume,
    _repeat,
    _preset,
    _timer,
    _cancel_timer,
)
"""One-call asks, weighted by repetition (power changes are rarer than volume changes)."""
CHAIN_ATOMS: tuple[Atom, ...] = tuple(a for a in SINGLE_ATOMS if a is not _power) + (_switch_and_play, _switch_and_tune)
"""Asks that may follow in a chain on one zone (the two-call switches only make sense there)."""


# --- questions (one read) ----------------------------------------------------------------------


def _question(rng: random.Random, s: MediaState) -> Request:
    topic = rng.choice(("volume", "playing", "timer", "source", "presets", "favorites"))
    if topic == "presets":
        return request(
            ["which sound presets do I have?", "list the sound presets"],
            ["show me what each sound preset sets so I can pick a sound for tonight"],
            ("list_presets", {}),
        )
    if topic == "favorites":
        return request(
            ["what are my favourites?", "list my favourite stations and playlists"],
            ["remind me which stations and playlists I saved as favourites"],
            ("list_favorites", {}),
        )
    zone = rng.choice(ZONES)
    z = _w(zone)
    direct, indirect = {
        "volume": (
            [f"what is the volume in the {z}?", f"how loud is the {z} set right now?"],
            [f"tell me what volume the {z} is at so I don't disturb anyone"],
        ),
        "playing": (
            [f"what is playing in the {z}?", f"is anything playing in the {z}?"],
            [f"check what the {z} player is doing because I can hear something faint"],
        ),
        "timer": (
            [f"is there a sleep timer running in the {z}?", f"when will the {z} switch itself off?"],
            [f"tell me whether a sleep timer is set in the {z} so it won't cut out mid-song"],
        ),
        "source": (
            [f"which source is the {z} on?", f"what input is the {z} using?"],
            [f"check which source the {z} is set to, my phone won't play through it"],
        ),
    }[topic]
    return request(direct, indirect, ("get_status", {"zone": zone}))


# --- compositional: reads whose replies supply later values -------------------------------------


def _on_zones(s: MediaState) -> list[Zone]:
    return [z for z in ZONES if s.zones[z].power == "on"]


def _match(rng: random.Random, s: MediaState) -> Request | None:
    zone, other = rng.sample(ZONES, 2)
    p, q = s.zones[zone], s.zones[other]
    if p.power == "off":
        return None
    z, o = _w(zone), _w(other)
    if rng.random() < 0.5:
        if q.volume == p.volume or q.volume > _volume_cap(zone):
            return None
        return request(
            [f"set the {z} volume to match the {o}", f"make the {z} as loud as the {o} is right now"],
            [f"bring the {z} to the same volume as the {o} since that sounds about right"],
            ("get_status", {"zone": other}),
            ("set_volume", {"zone": zone, "volume": q.volume}),
        )
    band = rng.choice(BANDS)
    if getattr(q, band) == getattr(p, band):
        return None
    return request(
        [f"give the {z} the same {band} level as the {o}", f"copy the {o} {band} setting to the {z}"],
        [f"set the {z} {band} to whatever the {o} uses because I like how the {o} sounds"],
        ("get_status", {"zone": other}),
        ("set_tone", {"zone": zone, "band": band, "level": getattr(q, band)}),
    )


def _copy_playlist(rng: random.Random, s: MediaState) -> Request | None:
    other, zone = rng.sample(ZONES, 2)
    p, q = s.zones[zone], s.zones[other]
    if q.power == "off" or q.source != "streaming" or q.playback != "playing" or p.power == "off":
        return None
    if p.source == "streaming" and p.playback == "playing" and (p.playlist, p.order) == (q.playlist, q.order):
        return None
    switch = [("set_source", {"zone": zone, "source": "streaming"})] if p.source != "streaming" else []
    play = ("play_playlist", {"zone": zone, "playlist": q.playlist, "order": q.order})
    z, o = _w(zone), _w(other)
    return request(
        [f"play whatever the {o} is playing in the {z} too, in the same order", f"put the {o} playlist on in the {z}"],
        [f"have the {z} play the same playlist the same way as the {o} since I'm moving over there"],
        ("get_status", {"zone": other}),
        *switch,
        play,
    )


def _favorite(rng: random.Random, s: MediaState) -> Request | None:
    zone = rng.choice(_on_zones(s))
    fav = rng.choice(s.favorites)
    p = s.zones[zone]
    switch = [("set_source", {"zone": zone, "source": fav.source})] if p.source != fav.source else []
    z, n = _w(zone), fav.slot
    if fav.source == "radio":
        if p.source == "radio" and p.playback == "playing" and p.station == fav.name:
            return None
        play = ("tune_radio", {"zone": zone, "station": fav.name})
        direct = [f"play my favourite number {n} in the {z}", f"put favourite {n} on in the {z}"]
        indirect = [f"play my number {n} favourite in the {z} because I'm in the mood for it"]
    else:
        order = rng.choice(ORDERS)
        if p.source == "streaming" and p.playback == "playing" and (p.playlist, p.order) == (fav.name, order):
            return None
        play = ("play_playlist", {"zone": zone, "playlist": fav.name, "order": order})
        o = _w(order)
        direct = [f"play my favourite number {n} in the {z} {o}", f"put favourite {n} on in the {z} {o}"]
        indirect = [f"play my number {n} favourite {o} in the {z} because I'm in the mood for it"]
    return request(direct, indirect, ("list_favorites", {}), *switch, play)


def _preset_level(rng: random.Random, s: MediaState) -> Request | None:
    zone, preset = rng.choice(_on_zones(s)), rng.choice(PRESETS)
    p, values = s.zones[zone], s.presets[preset]
    z, name = _w(zone), _w(preset)
    setting = rng.choice(("volume", *BANDS))
    level = getattr(values, setting)
    if level == getattr(p, setting) or (setting == "volume" and level > _volume_cap(zone)):
        return None
    if setting == "volume":
        write = ("set_volume", {"zone": zone, "volume": level})
    else:
        write = ("set_tone", {"zone": zone, "band": setting, "level": level})
    return request(
        [f"set the {z} {setting} to the level the {name} preset uses", f"give the {z} the {name} preset's {setting}"],
        [f"set just the {z} {setting} to match the {name} preset because that's the part of it I like"],
        ("list_presets", {}),
        write,
    )


def _conditional(rng: random.Random, s: MediaState) -> Request | None:
    zone = rng.choice(_on_zones(s))
    p, z = s.zones[zone], _w(zone)
    read = ("get_status", {"zone": zone})
    options = []
    if p.playback == "playing":
        options.append(
            request(
                [f"if the {z} is playing, pause it", f"check the {z} and pause it if it is playing"],
                [f"pause the {z} if anything is playing there because I'm about to make a call"],
                read,
                ("pause", {"zone": zone}),
            )
        )
    if p.playback == "paused":
        options.append(
            request(
                [f"if the {z} is paused, resume it", f"check the {z} and resume it if it is paused"],
                [f"carry on playing in the {z} if it was left paused now that I'm back"],
                read,
                ("resume", {"zone": zone}),
            )
        )
    if p.sleep_timer_min is not None:
        options.append(
            request(
                [f"if the {z} has a sleep timer, cancel it", f"check for a sleep timer in the {z} and cancel it"],
                [f"get rid of the sleep timer in the {z} if one is running since I'm staying up late"],
                read,
                ("cancel_timer", {"zone": zone}),
            )
        )
    return rng.choice(options) if options else None


# --- assembling tasks --------------------------------------------------------------------------

SIM = Simulator(OPERATIONS)


def _compound(rng: random.Random, s: MediaState, size: int) -> list[Request] | None:
    """``size`` independent one-call asks on the fresh world (no two touch a setting of one zone)."""
    return requests_of(compound(lambda _: rng.choice(SINGLE_ATOMS)(rng, s, rng.choice(ZONES)), size, tries=40 * size))


def _chain(rng: random.Random, s: MediaState, first: Ask, calls: int) -> list[Request] | None:
    """``first`` on its zone, then asks on the state it leaves until the gold has ``calls`` calls."""
    return extend(SIM, s, first, lambda after: rng.choice(CHAIN_ATOMS)(rng, after, first.zone), calls)


def _power_chain(rng: random.Random, s: MediaState, calls: int) -> list[Request] | None:
    off = [u for u in ZONES if s.zones[u].power == "off"]
    first = _power(rng, s, rng.choice(off))
    return _chain(rng, s, Ask(first.request, first.zone, frozenset({"power"})), calls)


def _source_chain(rng: random.Random, s: MediaState, calls: int) -> list[Request] | None:
    zone = rng.choice(_on_zones(s))
    first = rng.choice((_switch_and_play, _switch_and_tune))(rng, s, zone)
    return None if first is None else _chain(rng, s, first, calls)


COMPOUND_SIZES = (2,) * 14 + (3,) * 24 + (4,) * 24 + (5,) * 12
POWER_CHAIN_CALLS = (3, 4, 5, 6, 2)
"""Gold lengths of the power chains (up to 6: under ``transaction`` the oracle needs three turns a call
plus one to answer, 19 turns, within the episode limit of 20)."""
SOURCE_CHAIN_CALLS = (2, 3, 4, 5, 3)
SINGLE_WRITES = 20
QUESTIONS = 8
READ_THEN_WRITE: tuple[tuple[str, Callable[[random.Random, MediaState], Request | None], int], ...] = (
    ("match", _match, 3),
    ("copy_playlist", _copy_playlist, 2),
    ("favorite", _favorite, 3),
    ("preset_level", _preset_level, 3),
    ("conditional", _conditional, 3),
)
"""Compositional templates whose first call is a read: (template, builder, drafts per seed)."""


def drafts(state: MediaState, world_seed: int) -> list[TaskDraft]:
    """Every task on the fresh world ``state`` of ``world_seed``: about 126 drafts, deterministic.

    The task RNG is seeded from ``world_seed`` but distinct from the world's own RNG stream.
    """
    rng = random.Random(f"media_player/tasks/{world_seed}")
    out = Drafts(rng)
    out.fill("question", lambda: _question(rng, state), QUESTIONS)
    out.fill("single", lambda: _compound(rng, state, 1), SINGLE_WRITES)
    for size in sorted(set(COMPOUND_SIZES)):
        out.fill("compound", lambda size=size: _compound(rng, state, size), COMPOUND_SIZES.count(size))
    for calls in POWER_CHAIN_CALLS:
        out.fill("power_chain", lambda calls=calls: _power_chain(rng, state, calls), 1, "compositional")
    for calls in SOURCE_CHAIN_CALLS:
        out.fill("source_chain", lambda calls=calls: _source_chain(rng, state, calls), 1, "compositional")
    for template, build, count in READ_THEN_WRITE:
        out.fill(template, lambda build=build: build(rng, state), count, "compositional")
    # A world where some template finds too little to work with gets more of the others.
    target = len(POWER_CHAIN_CALLS) + len(SOURCE_CHAIN_CALLS) + sum(count for _, _, count in READ_THEN_WRITE)
    for template, build, _ in READ_THEN_WRITE * 3:
        if out.count("compositional") < target:
            out.fill(template, lambda build=build: build(rng, state), 1, "compositional")
    return out.items
