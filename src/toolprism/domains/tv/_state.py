"""Typed state of the tv world: three television sets and a shared antenna channel guide.

Each set (living room, bedroom, kids' room) has power, input, channel or app, playback, volume,
mute, picture mode, subtitles, a sleep timer, a child lock and its own installed apps. The guide
lists two antenna channels per genre with what each is showing now. Everything is drawn from
``random.Random(f"tv/world/{world_seed}")``.
"""

from __future__ import annotations

import random
from typing import Annotated, Literal, get_args

from pydantic import Field

from toolprism.domains._device import Percent, StateModel

TvName = Literal["living_room", "bedroom", "kids_room"]
Power = Literal["on", "off"]
Input = Literal["antenna", "hdmi1", "hdmi2", "apps"]
App = Literal["streamflix", "vidtube", "sportszone", "kidsworld", "newsnow", "musicbox"]
Playback = Literal["playing", "paused"]
Mute = Literal["muted", "unmuted"]
PictureMode = Literal["standard", "cinema", "vivid", "game", "sports"]
Subtitles = Literal["off", "english", "spanish", "french"]
Genre = Literal["news", "sports", "movies", "kids", "music", "documentary"]

TVS: tuple[TvName, ...] = get_args(TvName)
INPUTS: tuple[Input, ...] = get_args(Input)
APPS: tuple[App, ...] = get_args(App)
PICTURE_MODES: tuple[PictureMode, ...] = get_args(PictureMode)
SUBTITLES: tuple[Subtitles, ...] = get_args(Subtitles)
GENRES: tuple[Genre, ...] = get_args(Genre)

KIDS_APP: App = "kidsworld"
"""The only app a child-locked set opens (child-locked sets also tune only ``kids`` channels)."""
CHANNEL_RANGE = (1, 99)
TIMER_RANGE_MIN = (10, 180)

SHOWS: dict[Genre, tuple[str, ...]] = {
    "news": ("Evening Headlines", "World Report", "Morning Briefing", "Business Hour"),
    "sports": ("Cup Final Live", "Tennis Open", "Motor Racing", "Cycling Tour"),
    "movies": ("Desert Storm", "Midnight Train", "The Last Orchard", "Paper Moons"),
    "kids": ("Cartoon Castle", "Dino Friends", "Space Pups", "Story Garden"),
    "music": ("Chart Countdown", "Jazz Session", "Festival Stage", "Piano Hour"),
    "documentary": ("Ocean Giants", "Ancient Cities", "Wild Alps", "Rainforest Year"),
}
"""Show titles a guide channel of each genre may be showing (unique across genres)."""

Channel = Annotated[int, Field(ge=CHANNEL_RANGE[0], le=CHANNEL_RANGE[1])]
Minutes = Annotated[int, Field(ge=TIMER_RANGE_MIN[0], le=TIMER_RANGE_MIN[1])]


class GuideChannel(StateModel):
    """An antenna channel: its number, name, genre and what it is showing now."""

    number: Channel
    name: str
    genre: Genre
    now_showing: str


class Television(StateModel):
    """One set. ``channel`` is the last antenna channel and ``app`` the last app opened;
    ``playback`` applies to the app. Settings survive power off; the sleep timer is cleared."""

    power: Power
    input: Input
    channel: Channel
    app: App
    playback: Playback
    volume: Percent
    mute: Mute
    picture_mode: PictureMode
    subtitles: Subtitles
    sleep_timer_min: Minutes | None
    child_lock: Power
    installed_apps: list[App]


class TvState(StateModel):
    """The three sets and the channel guide."""

    tvs: dict[TvName, Television]
    guide: list[GuideChannel]


def initial_state(world_seed: int) -> TvState:
    """The sets and guide for ``world_seed``: exactly one set is off; deterministic in the seed."""
    rng = random.Random(f"tv/world/{world_seed}")
    guide = _guide(rng)
    off = rng.choice(TVS)
    tvs = {name: _television(rng, name, "off" if name == off else "on", guide) for name in TVS}
    return TvState(tvs=tvs, guide=guide)


def _guide(rng: random.Random) -> list[GuideChannel]:
    numbers = sorted(rng.sample(range(2, 100), 2 * len(GENRES)))
    slots = [genre for genre in GENRES for _ in range(2)]
    rng.shuffle(slots)
    channels = []
    shows = {genre: rng.sample(SHOWS[genre], 2) for genre in GENRES}
    for number, genre in zip(numbers, slots, strict=True):
        show = shows[genre].pop()
        channels.append(GuideChannel(number=number, name=f"{genre.title()} {number}", genre=genre, now_showing=show))
    return channels


def _television(rng: random.Random, name: TvName, power: Power, guide: list[GuideChannel]) -> Television:
    others = [a for a in APPS if a != KIDS_APP]
    installed = sorted([KIDS_APP, *rng.sample(others, 3)] if name == "kids_room" else rng.sample(APPS, 4))
    lock: Power = rng.choice(("on", "off")) if name == "kids_room" else "off"
    channels = [c.number for c in guide if lock == "off" or c.genre == "kids"]
    app = KIDS_APP if lock == "on" else rng.choice(installed)
    return Television(
        power=power,
        input=rng.choice(INPUTS),
        channel=rng.choice(channels),
        app=app,
        playback=rng.choice(("playing", "paused")),
        volume=rng.randrange(10, 71, 5),
        mute=rng.choice(("muted", "unmuted", "unmuted")),
        picture_mode=rng.choice(PICTURE_MODES),
        subtitles=rng.choice(SUBTITLES),
        sleep_timer_min=rng.choice((None, None, 30, 60)) if power == "on" else None,
        child_lock=lock,
        installed_apps=installed,
    )
