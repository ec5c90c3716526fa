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

from toolprism.domains._asks import AskKind
from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import Simulator, flip, other
from toolprism.domains._fleet import Atom, DeviceAsk, Devices, device_ask
from toolprism.domains._grammar import replied, slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains._plan import Builder, draft_plan
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
    Player,
    Zone,
)

ALL_SLOTS = frozenset({"power", "volume", "bass", "treble", "playback", "repeat", "timer"})


def _volume_cap(zone: Zone) -> int:
    return PATIO_MAX_VOLUME if zone == "patio" else 100


# --- ask kinds: one write on one zone ----------------------------------------------------------

POWER = AskKind(
    "set_power",
    ("turn {power} the {zone} player", "switch the {zone} speakers {power}"),
    {
        "on": (
            "switch the {zone} player {power} because I want some music in there",
            "get some music going in the {zone} by turning its player {power}",
        ),
        "off": (
            "switch the {zone} player {power} since nobody is in there anymore",
            "let the {zone} go quiet and turn its player {power}",
        ),
    },
    key="power",
)
SOURCE = AskKind(
    "set_source",
    ("switch the {zone} to {source}", "set the {zone} source to {source}"),
    {
        "streaming": "switch the {zone} to {source} so I get my playlists back",
        "radio": "change the {zone} to {source} so I can hear something live",
        "bluetooth": "put the {zone} on {source} so I can play something from my phone",
        "aux": "switch the {zone} to {source} since the record player is plugged in there",
    },
    key="source",
)
PLAYLIST = AskKind(
    "play_playlist",
    ("play the {playlist} playlist in the {zone} {order}", "put on {playlist} {order} in the {zone}"),
    "play {playlist} {order} in the {zone} since {goal}",
)
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
RADIO = AskKind(
    "tune_radio",
    ("tune the {zone} to {station}", "put {station} on in the {zone}"),
    "change the station in the {zone} to {station} for something different",
)
PAUSE = AskKind(
    "pause",
    ("pause the music in the {zone}", "pause the {zone}"),
    (
        "hold the music in the {zone} for now because I have to take a call",
        "keep my place in the {zone} but give me a moment of quiet",
    ),
)
RESUME = AskKind(
    "resume",
    ("resume the music in the {zone}", "unpause the {zone}"),
    (
        "pick the music in the {zone} back up where it left off now that I'm off the phone",
        "carry on from where the {zone} stopped",
    ),
)
REPEAT = AskKind(
    "set_repeat",
    {
        "off": ("turn repeat {repeat} in the {zone}", "set the {zone} repeat to {repeat}"),
        "one": ("set the {zone} to repeat {repeat}", "put the {zone} on repeat {repeat}"),
        "all": ("set the {zone} to repeat {repeat}", "turn on repeat {repeat} in the {zone}"),
    },
    {
        "off": "stop the loops in the {zone} with repeat {repeat}",
        "one": "keep the {zone} on this song with repeat {repeat}",
        "all": "keep the {zone} looping with repeat {repeat}",
    },
    key="repeat",
)
PRESET = AskKind(
    "apply_preset",
    ("apply the {preset} preset in the {zone}", "use the {preset} sound preset in the {zone}"),
    {
        "party": "switch the {zone} to the {preset} preset since we're having people over",
        "late_night": "give the {zone} the {preset} preset because everyone else is asleep",
        "background": "use the {preset} preset in the {zone} for some quiet music behind me",
        "voice": "apply the {preset} preset in the {zone} for the talk shows I'm listening to",
        "movie": "apply the {preset} preset in the {zone} since we're watching a film",
    },
    key="preset",
)
TIMER = AskKind(
    "set_timer",
    ("set a sleep timer for {minutes} minutes in the {zone}", "set the {zone} sleep timer to {minutes} minutes"),
    "let the music in the {zone} stop by itself after {minutes} minutes in case I doze off",
    key="minutes",
)
CANCEL_TIMER = AskKind(
    "cancel_timer",
    ("cancel the {zone} sleep timer", "clear the sleep timer in the {zone}"),
    "stop the {zone} from cutting out on me by getting rid of its sleep timer",
)


# --- atoms: one write on one zone, phrased from its current state ------------------------------


def _power(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk:
    return DeviceAsk(POWER.request(zone=zone, power=flip(s.zones[zone].power)), zone, ALL_SLOTS)


def _volume(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    p = s.zones[zone]
    if p.power == "off":
        return None
    level = other(rng, range(10, _volume_cap(zone) + 1, 5), p.volume)
    z, v = slot(zone), slot(level)
    direct = [f"set the {z} volume to {v}", f"change the volume in the {z} to {v}%"]
    if level > p.volume:
        indirect = [
            f"bring the {z} up to {v} as I can hardly hear the music in there",
            f"make the {z} louder at {v} percent",
        ]
    else:
        indirect = [
            f"take the {z} down to {v} because it is far too loud",
            f"lower the {z} to {v} so we can hear each other talk",
        ]
    return device_ask(zone, {"volume"}, request(direct, indirect, ("set_volume", {"zone": zone, "volume": level})))


_TONE_GOAL = {
    ("bass", True): "give the {z} more {band} at {level} because it sounds thin",
    ("bass", False): "bring the {z} {band} down to {level} since it is too boomy",
    ("treble", True): "raise the {z} {band} to {level} since it sounds muffled",
    ("treble", False): "lower the {z} {band} to {level} because it sounds harsh",
}


def _tone(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    p = s.zones[zone]
    if p.power == "off":
        return None
    band = rng.choice(BANDS)
    current = getattr(p, band)
    level = other(rng, range(-8, 9), current)
    z, b, v = slot(zone), slot(band), slot(level)
    direct = [f"set the {z} {b} to {v}", f"adjust the {b} in the {z} to {v}"]
    indirect = [_TONE_GOAL[band, level > current].format(z=z, band=b, level=v)]
    gold = ("set_tone", {"zone": zone, "band": band, "level": level})
    return device_ask(zone, {band}, request(direct, indirect, gold))


def _source(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    p = s.zones[zone]
    if p.power == "off":
        return None
    source = other(rng, SOURCE.indirect, p.source)
    return device_ask(zone, {"playback", "repeat"}, SOURCE.request(zone=zone, source=source))


def _playlist_args(rng: random.Random, s: MediaState, zone: Zone) -> dict:
    """A playlist different from the one the zone plays, and an order: ``play_playlist`` arguments."""
    p = s.zones[zone]
    choices = [x for x in PLAYLISTS if x != p.playlist or p.playback != "playing"]
    playlist, order = rng.choice(choices), rng.choice(ORDERS)
    return {"zone": zone, "playlist": playlist, "order": order}


def _playlist(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    p = s.zones[zone]
    if p.power == "off" or p.source != "streaming":
        return None
    args = _playlist_args(rng, s, zone)
    return device_ask(zone, {"playback"}, PLAYLIST.request({"goal": _PLAYLIST_GOAL[args["playlist"]]}, **args))


def _switch_and_play(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    """Two dependent calls: switch to streaming, then play (compositional chains only)."""
    p = s.zones[zone]
    if p.power == "off" or p.source == "streaming":
        return None
    args = _playlist_args(rng, s, zone)
    z, name, order, streaming = slot(zone), slot(args["playlist"]), slot(args["order"]), slot("streaming")
    direct = [
        f"switch the {z} to {streaming} and play {name} {order}",
        f"change the {z} source to {streaming} and put on the {name} playlist {order}",
    ]
    goal = _PLAYLIST_GOAL[args["playlist"]]
    indirect = [f"move the {z} over to {streaming} and play {name} {order} there since {goal}"]
    gold = (("set_source", {"zone": zone, "source": "streaming"}), ("play_playlist", args))
    return device_ask(zone, {"playback", "repeat"}, request(direct, indirect, *gold))


def _station_choice(rng: random.Random, s: MediaState, zone: Zone) -> str:
    p = s.zones[zone]
    return rng.choice([x for x in STATIONS if x != p.station or p.playback != "playing"])


def _radio(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    p = s.zones[zone]
    if p.power == "off" or p.source != "radio":
        return None
    return device_ask(zone, {"playback"}, RADIO.request(zone=zone, station=_station_choice(rng, s, zone)))


def _switch_and_tune(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    """Two dependent calls: switch to radio, then tune (compositional chains only)."""
    p = s.zones[zone]
    if p.power == "off" or p.source == "radio":
        return None
    station = _station_choice(rng, s, zone)
    z, name, radio = slot(zone), slot(station), slot("radio")
    direct = [f"switch the {z} to {radio} and tune it to {name}", f"change the {z} source to {radio} and put on {name}"]
    indirect = [f"move the {z} over to {radio} and tune in to {name} because I'd like to hear it"]
    gold = (("set_source", {"zone": zone, "source": "radio"}), ("tune_radio", {"zone": zone, "station": station}))
    return device_ask(zone, {"playback", "repeat"}, request(direct, indirect, *gold))


def _pause(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    p = s.zones[zone]
    if p.power == "off" or p.playback != "playing":
        return None
    return device_ask(zone, {"playback"}, PAUSE.request(zone=zone))


def _resume(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    p = s.zones[zone]
    if p.power == "off" or p.playback != "paused":
        return None
    return device_ask(zone, {"playback"}, RESUME.request(zone=zone))


def _repeat(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    p = s.zones[zone]
    if p.power == "off" or p.source != "streaming":
        return None
    return device_ask(zone, {"repeat"}, REPEAT.draw(rng, list(REPEAT.indirect), p.repeat, zone=zone))


def _preset(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
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
    return device_ask(zone, {"volume", "bass", "treble"}, PRESET.request(zone=zone, preset=rng.choice(choices)))


def _timer(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    p = s.zones[zone]
    if p.power == "off":
        return None
    return device_ask(zone, {"timer"}, TIMER.draw(rng, (15, 20, 30, 45, 60, 90), p.sleep_timer_min, zone=zone))


def _cancel_timer(rng: random.Random, s: MediaState, zone: Zone) -> DeviceAsk | None:
    p = s.zones[zone]
    if p.power == "off" or p.sleep_timer_min is None:
        return None
    return device_ask(zone, {"timer"}, CANCEL_TIMER.request(zone=zone))


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
DEVICES = Devices(
    simulator=Simulator(OPERATIONS),
    names=ZONES,
    singles=SINGLE_ATOMS,
    chained=CHAIN_ATOMS,
    power=_power,
    powered_off=lambda s: [z for z in ZONES if s.zones[z].power == "off"],
)


# --- questions (one read) ----------------------------------------------------------------------

QUESTIONS_BY_TOPIC = {
    "presets": AskKind(
        "list_presets",
        ("which sound presets do I have?", "list the sound presets"),
        "show me what each sound preset sets so I can pick a sound for tonight",
    ),
    "favorites": AskKind(
        "list_favorites",
        ("what are my favourites?", "list my favourite stations and playlists"),
        "remind me which stations and playlists I saved as favourites",
    ),
    "volume": AskKind(
        "get_status",
        ("what is the volume in the {zone}?", "how loud is the {zone} set right now?"),
        "tell me what volume the {zone} is at so I don't disturb anyone",
    ),
    "playing": AskKind(
        "get_status",
        ("what is playing in the {zone}?", "is anything playing in the {zone}?"),
        "check what the {zone} player is doing because I can hear something faint",
    ),
    "timer": AskKind(
        "get_status",
        ("is there a sleep timer running in the {zone}?", "when will the {zone} switch itself off?"),
        "tell me whether a sleep timer is set in the {zone} so it won't cut out mid-song",
    ),
    "source": AskKind(
        "get_status",
        ("which source is the {zone} on?", "what input is the {zone} using?"),
        "check which source the {zone} is set to, my phone won't play through it",
    ),
}


def _question(rng: random.Random, s: MediaState) -> Request:
    topic = rng.choice(("volume", "playing", "timer", "source", "presets", "favorites"))
    if topic in ("presets", "favorites"):
        return QUESTIONS_BY_TOPIC[topic].request()
    return QUESTIONS_BY_TOPIC[topic].request(zone=rng.choice(ZONES))


# --- compositional: reads whose replies supply later values -------------------------------------


def _on_zones(s: MediaState) -> list[Zone]:
    return [z for z in ZONES if s.zones[z].power == "on"]


def _match(rng: random.Random, s: MediaState) -> Request | None:
    zone, other = rng.sample(ZONES, 2)
    p, q = s.zones[zone], s.zones[other]
    if p.power == "off":
        return None
    z, o = slot(zone), slot(other)
    if rng.random() < 0.5:
        if q.volume == p.volume or q.volume > _volume_cap(zone):
            return None
        return request(
            [f"set the {z} volume to match the {o}", f"make the {z} as loud as the {o} is right now"],
            [f"bring the {z} to the same volume as the {o} since that sounds about right"],
            ("get_status", {"zone": other}),
            ("set_volume", {"zone": zone, "volume": replied(q.volume)}),
        )
    band = rng.choice(BANDS)
    if getattr(q, band) == getattr(p, band):
        return None
    b = slot(band)
    return request(
        [f"give the {z} the same {b} level as the {o}", f"copy the {o} {b} setting to the {z}"],
        [f"set the {z} {b} to whatever the {o} uses because I like how the {o} sounds"],
        ("get_status", {"zone": other}),
        ("set_tone", {"zone": zone, "band": band, "level": replied(getattr(q, band))}),
    )


def _copy_playlist(rng: random.Random, s: MediaState) -> Request | None:
    other, zone = rng.sample(ZONES, 2)
    p, q = s.zones[zone], s.zones[other]
    if q.power == "off" or q.source != "streaming" or q.playback != "playing" or p.power == "off":
        return None
    if p.source == "streaming" and p.playback == "playing" and (p.playlist, p.order) == (q.playlist, q.order):
        return None
    switch = [("set_source", {"zone": zone, "source": replied("streaming")})] if p.source != "streaming" else []
    play = ("play_playlist", {"zone": zone, "playlist": replied(q.playlist), "order": replied(q.order)})
    z, o = slot(zone), slot(other)
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
    switch = [("set_source", {"zone": zone, "source": replied(fav.source)})] if p.source != fav.source else []
    z, n = slot(zone), fav.slot
    if fav.source == "radio":
        if p.source == "radio" and p.playback == "playing" and p.station == fav.name:
            return None
        play = ("tune_radio", {"zone": zone, "station": replied(fav.name)})
        direct = [f"play my favourite number {n} in the {z}", f"put favourite {n} on in the {z}"]
        indirect = [f"play my number {n} favourite in the {z} because I'm in the mood for it"]
    else:
        order = rng.choice(ORDERS)
        if p.source == "streaming" and p.playback == "playing" and (p.playlist, p.order) == (fav.name, order):
            return None
        play = ("play_playlist", {"zone": zone, "playlist": replied(fav.name), "order": order})
        o = slot(order)
        direct = [f"play my favourite number {n} in the {z} {o}", f"put favourite {n} on in the {z} {o}"]
        indirect = [f"play my number {n} favourite {o} in the {z} because I'm in the mood for it"]
    return request(direct, indirect, ("list_favorites", {}), *switch, play)


def _preset_level(rng: random.Random, s: MediaState) -> Request | None:
    zone, preset = rng.choice(_on_zones(s)), rng.choice(PRESETS)
    p, values = s.zones[zone], s.presets[preset]
    z, name = slot(zone), preset.replace("_", " ")
    setting = rng.choice(("volume", *BANDS))
    level = getattr(values, setting)
    if level == getattr(p, setting) or (setting == "volume" and level > _volume_cap(zone)):
        return None
    if setting == "volume":
        said, write = setting, ("set_volume", {"zone": zone, "volume": replied(level)})
    else:
        said, write = slot(setting), ("set_tone", {"zone": zone, "band": setting, "level": replied(level)})
    return request(
        [f"set the {z} {said} to the level the {name} preset uses", f"give the {z} the {name} preset's {said}"],
        [f"set just the {z} {said} to match the {name} preset because that's the part of it I like"],
        ("list_presets", {}),
        write,
    )


CONDITIONAL: tuple[tuple[Callable[[Player], bool], AskKind], ...] = (
    (
        lambda p: p.playback == "playing",
        AskKind(
            "pause",
            ("if the {zone} is playing, pause it", "check the {zone} and pause it if it is playing"),
            "pause the {zone} if anything is playing there because I'm about to make a call",
        ),
    ),
    (
        lambda p: p.playback == "paused",
        AskKind(
            "resume",
            ("if the {zone} is paused, resume it", "check the {zone} and resume it if it is paused"),
            "carry on playing in the {zone} if it was left paused now that I'm back",
        ),
    ),
    (
        lambda p: p.sleep_timer_min is not None,
        AskKind(
            "cancel_timer",
            ("if the {zone} has a sleep timer, cancel it", "check for a sleep timer in the {zone} and cancel it"),
            "get rid of the sleep timer in the {zone} if one is running since I'm staying up late",
        ),
    ),
)
"""Conditional asks: (when the zone's player calls for it, the ask), posed after reading its status."""


def _conditional(rng: random.Random, s: MediaState) -> Request | None:
    zone = rng.choice(_on_zones(s))
    read = ("get_status", {"zone": zone})
    options = [ask.after(read, zone=zone) for applies, ask in CONDITIONAL if applies(s.zones[zone])]
    return rng.choice(options) if options else None


# --- assembling tasks --------------------------------------------------------------------------

READ_THEN_WRITE: tuple[tuple[str, Builder, int], ...] = (
    ("match", _match, 3),
    ("copy_playlist", _copy_playlist, 2),
    ("favorite", _favorite, 3),
    ("preset_level", _preset_level, 3),
    ("conditional", _conditional, 3),
)
"""Compositional templates whose first call is a read: (template, builder, drafts per seed)."""
PLAN = DEVICES.plan(
    _question, ("source_chain", (_switch_and_play, _switch_and_tune)), READ_THEN_WRITE, power_calls=(3, 4, 5, 6, 2)
)
"""Drafts per seed (see :meth:`~toolprism.domains._fleet.Devices.plan`)."""


def drafts(state: MediaState, world_seed: int) -> list[TaskDraft]:
    """Every task on the fresh world ``state`` of ``world_seed``: about 126 drafts, deterministic.

    The task RNG is seeded from ``world_seed`` but distinct from the world's own RNG stream.
    """
    return draft_plan(random.Random(f"media_player/tasks/{world_seed}"), state, PLAN, top_up=3)
