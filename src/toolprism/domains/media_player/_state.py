"""Typed state of the media-player world: a five-zone home audio system, seeded initial state.

Each zone has its own player (power, source, what it plays, playback state, volume, tone, repeat,
sleep timer). Sound presets and favourite slots are shared by every zone. Settings are drawn from
``random.Random(f"media_player/world/{world_seed}")``.
"""

from __future__ import annotations

import random
from typing import Annotated, Literal, get_args

from pydantic import Field

from toolprism.domains._device import Percent, StateModel

Zone = Literal["living_room", "kitchen", "bedroom", "office", "patio"]
Power = Literal["on", "off"]
Source = Literal["streaming", "radio", "bluetooth", "aux"]
Playlist = Literal[
    "morning_coffee", "workout", "dinner_jazz", "deep_focus", "road_trip", "chill_vibes", "party_mix", "sleep_sounds"
]
Station = Literal["jazz_fm", "classic_gold", "news_talk", "indie_wave", "country_roads", "sports_live"]
Order = Literal["in_order", "shuffled"]
Playback = Literal["playing", "paused", "stopped"]
Repeat = Literal["off", "one", "all"]
Band = Literal["bass", "treble"]
PresetName = Literal["party", "late_night", "background", "voice", "movie"]

ZONES: tuple[Zone, ...] = get_args(Zone)
SOURCES: tuple[Source, ...] = get_args(Source)
PLAYLISTS: tuple[Playlist, ...] = get_args(Playlist)
STATIONS: tuple[Station, ...] = get_args(Station)
ORDERS: tuple[Order, ...] = get_args(Order)
REPEATS: tuple[Repeat, ...] = get_args(Repeat)
BANDS: tuple[Band, ...] = get_args(Band)
PRESETS: tuple[PresetName, ...] = get_args(PresetName)

PATIO_MAX_VOLUME = 80
"""The patio player is capped at this volume (percent) out of respect for the neighbours."""
TONE_RANGE = (-10, 10)
"""Bass and treble levels, in steps, inclusive."""
TIMER_RANGE_MIN = (5, 120)
"""Sleep timers, in minutes, inclusive."""

Tone = Annotated[int, Field(ge=TONE_RANGE[0], le=TONE_RANGE[1])]
Minutes = Annotated[int, Field(ge=TIMER_RANGE_MIN[0], le=TIMER_RANGE_MIN[1])]


class Player(StateModel):
    """One zone's player.

    ``playlist``/``order`` describe the last streaming playlist and ``station`` the last radio
    station; ``playback`` says whether the current source is playing. Settings survive power off,
    playback stops and the sleep timer is cleared.
    """

    power: Power
    source: Source
    playback: Playback
    playlist: Playlist | None
    order: Order
    station: Station | None
    repeat: Repeat
    volume: Percent
    bass: Tone
    treble: Tone
    sleep_timer_min: Minutes | None


class Preset(StateModel):
    """A named sound preset: the volume (percent) and tone it applies to a zone."""

    volume: Percent
    bass: Tone
    treble: Tone


class Favorite(StateModel):
    """A favourite slot: a playlist (``source="streaming"``) or a radio station (``source="radio"``)."""

    slot: int
    source: Literal["streaming", "radio"]
    name: Playlist | Station


class MediaState(StateModel):
    """The whole home audio system."""

    zones: dict[Zone, Player]
    presets: dict[PresetName, Preset]
    favorites: list[Favorite]


def initial_state(world_seed: int) -> MediaState:
    """The audio system for ``world_seed``: one or two zones off, the rest in a drawn state.

    Deterministic in ``world_seed``; no zone starts above the patio cap when it is the patio.
    """
    rng = random.Random(f"media_player/world/{world_seed}")
    off = set(rng.sample(ZONES, rng.choice((1, 2))))
    zones = {zone: _player(rng, zone, "off" if zone in off else "on") for zone in ZONES}
    return MediaState(zones=zones, presets=_presets(rng), favorites=_favorites(rng))


def _player(rng: random.Random, zone: Zone, power: Power) -> Player:
    source = rng.choice(SOURCES)
    playback: Playback = "stopped" if power == "off" else rng.choice(("playing", "playing", "paused", "stopped"))
    high = PATIO_MAX_VOLUME if zone == "patio" else 90
    timer = rng.choice((None, None, 30, 45, 60)) if power == "on" else None
    return Player(
        power=power,
        source=source,
        playback=playback,
        playlist=rng.choice(PLAYLISTS),
        order=rng.choice(ORDERS),
        station=rng.choice(STATIONS),
        repeat=rng.choice(REPEATS),
        volume=rng.randrange(15, high + 1, 5),
        bass=rng.randint(-4, 4),
        treble=rng.randint(-4, 4),
        sleep_timer_min=timer,
    )


def _presets(rng: random.Random) -> dict[PresetName, Preset]:
    return {
        "party": Preset(volume=rng.choice((70, 75, 80)), bass=rng.randint(5, 8), treble=rng.randint(2, 5)),
        "late_night": Preset(volume=rng.choice((15, 20, 25)), bass=rng.randint(-6, -3), treble=rng.randint(-3, -1)),
        "background": Preset(volume=rng.choice((25, 30, 35)), bass=0, treble=0),
        "voice": Preset(volume=rng.choice((40, 45, 50)), bass=rng.randint(-5, -2), treble=rng.randint(3, 6)),
        "movie": Preset(volume=rng.choice((55, 60, 65)), bass=rng.randint(4, 7), treble=rng.randint(0, 2)),
    }


def _favorites(rng: random.Random) -> list[Favorite]:
    playlists = rng.sample(PLAYLISTS, 3)
    stations = rng.sample(STATIONS, 3)
    items = [("streaming", p) for p in playlists] + [("radio", s) for s in stations]
    rng.shuffle(items)
    return [Favorite(slot=i, source=source, name=name) for i, (source, name) in enumerate(items, start=1)]
