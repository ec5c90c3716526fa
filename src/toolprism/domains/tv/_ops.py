"""The tv native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError` (checked before any mutation):

- a set that is off accepts only ``set_power`` and ``set_child_lock``; switching power, mute or
  child lock to the value it already has is refused;
- channels need the ``antenna`` input and must be in the guide;
- apps must be installed on the set; ``pause`` needs an app playing, ``resume`` one paused;
- a child-locked set tunes only ``kids`` channels and opens only the ``kidsworld`` app;
- a muted set refuses a volume change (unmute it first);
- ``set_timer`` replaces a running sleep timer (there is no separate cancel).

Other writes overwrite and succeed even when nothing changes.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import dumped, refuse_if, require_on, switch, transition
from toolprism.domains.tv._state import (
    KIDS_APP,
    App,
    Genre,
    Input,
    Mute,
    PictureMode,
    Power,
    Subtitles,
    Television,
    TvName,
    TvState,
)

TvArg = Annotated[TvName, Field(description="Which television set.")]


def _reply(state: TvState, tv: TvName) -> dict:
    return dumped("tv", tv, state.tvs[tv])


def _on(state: TvState, tv: TvName) -> Television:
    """The set, refusing if it is off."""
    return require_on(state.tvs[tv], f"the {tv} tv is off; turn it on first")


def _app_playback(state: TvState, tv: TvName, source: str, target: str, refusal: str) -> dict:
    """Move the set's app playback from ``source`` to ``target``, refusing unless it shows an app in ``source``."""
    set_ = _on(state, tv)
    refuse_if(set_.input != "apps", refusal)
    transition(set_, "playback", source, target, refusal)
    return _reply(state, tv)


def _genre(state: TvState, channel: int) -> str | None:
    return next((c.genre for c in state.guide if c.number == channel), None)


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="status")
def get_status(state: TvState, tv: TvArg) -> dict:
    """Get a set's state: power, input, channel, app, playback, volume, mute, picture, subtitles, timer, child lock."""
    return _reply(state, tv)


@operation(kind="read", group="guide")
def get_guide(state: TvState, genre: Annotated[Genre, Field(description="The kind of channel to list.")]) -> dict:
    """List the antenna channels of a genre with what each is showing now (watch them on the antenna input)."""
    channels = [c.model_dump(mode="json") for c in state.guide if c.genre == genre]
    return {"genre": genre, "input": "antenna", "channels": channels}


@operation(kind="read", group="apps")
def list_apps(state: TvState, tv: TvArg) -> dict:
    """List the apps installed on a set and which of them its child lock allows."""
    set_ = state.tvs[tv]
    allowed = [a for a in set_.installed_apps if set_.child_lock == "off" or a == KIDS_APP]
    return {"tv": tv, "installed_apps": list(set_.installed_apps), "allowed_apps": allowed}


# --- power, input, content ---------------------------------------------------------------------


@operation(kind="write", group="power")
def set_power(state: TvState, tv: TvArg, power: Annotated[Power, Field(description="Turn the set on or off.")]) -> dict:
    """Turn a set on or off; off clears its sleep timer."""
    set_ = state.tvs[tv]
    switch(set_, "power", power, f"the {tv} tv is already {power}")
    if power == "off":
        set_.sleep_timer_min = None
    return _reply(state, tv)


@operation(kind="write", group="input")
def set_input(
    state: TvState,
    tv: TvArg,
    input: Annotated[Input, Field(description="The input to show (apps resumes the last app).")],
) -> dict:
    """Switch a set's input: the antenna (last channel), an HDMI port, or the apps (last app)."""
    set_ = _on(state, tv)
    locked = set_.child_lock == "on"
    refuse_if(
        locked and input == "apps" and set_.app != KIDS_APP,
        f"the {tv} tv has its child lock on and its last app is {set_.app}; open {KIDS_APP}",
    )
    refuse_if(
        locked and input == "antenna" and _genre(state, set_.channel) != "kids",
        f"the {tv} tv has its child lock on and its last channel is not a kids channel",
    )
    set_.input = input
    return _reply(state, tv)


@operation(kind="write", group="input")
def set_channel(
    state: TvState,
    tv: TvArg,
    channel: Annotated[int, Field(ge=1, le=99, description="The antenna channel number (1-99, see get_guide).")],
) -> dict:
    """Tune a set to an antenna channel; the set must be on the antenna input."""
    set_ = _on(state, tv)
    refuse_if(set_.input != "antenna", f"the {tv} tv is on {set_.input}; switch its input to antenna to change channel")
    genre = _genre(state, channel)
    refuse_if(genre is None, f"there is no channel {channel} in the guide")
    locked = set_.child_lock == "on"
    refuse_if(locked and genre != "kids", f"the {tv} tv has its child lock on; it only tunes kids channels")
    set_.channel = channel
    return _reply(state, tv)


@operation(kind="write", group="apps")
def launch_app(state: TvState, tv: TvArg, app: Annotated[App, Field(description="The app to open.")]) -> dict:
    """Open an installed app on a set and start playing; the input switches to apps."""
    set_ = _on(state, tv)
    installed = ", ".join(set_.installed_apps)
    refuse_if(app not in set_.installed_apps, f"{app} is not installed on the {tv} tv (installed: {installed})")
    locked = set_.child_lock == "on"
    refuse_if(locked and app != KIDS_APP, f"the {tv} tv has its child lock on; it only opens {KIDS_APP}")
    set_.input, set_.app, set_.playback = "apps", app, "playing"
    return _reply(state, tv)


@operation(kind="write", group="playback")
def pause(state: TvState, tv: TvArg) -> dict:
    """Pause the app playing on a set; refused unless an app is playing."""
    return _app_playback(state, tv, "playing", "paused", f"nothing is playing in an app on the {tv} tv")


@operation(kind="write", group="playback")
def resume(state: TvState, tv: TvArg) -> dict:
    """Resume the paused app on a set; refused unless an app is paused."""
    return _app_playback(state, tv, "paused", "playing", f"no app is paused on the {tv} tv")


# --- sound and picture -------------------------------------------------------------------------


@operation(kind="write", group="sound")
def set_volume(
    state: TvState,
    tv: TvArg,
    volume: Annotated[int, Field(ge=0, le=100, description="Volume in percent (0-100).")],
) -> dict:
    """Set a set's volume; refused while the set is muted."""
    set_ = _on(state, tv)
    refuse_if(set_.mute == "muted", f"the {tv} tv is muted; unmute it before changing the volume")
    set_.volume = volume
    return _reply(state, tv)


@operation(kind="write", group="sound")
def set_mute(state: TvState, tv: TvArg, mute: Annotated[Mute, Field(description="Mute or unmute the sound.")]) -> dict:
    """Mute or unmute a set; refused if it already is."""
    switch(_on(state, tv), "mute", mute, f"the {tv} tv is already {mute}")
    return _reply(state, tv)


@operation(kind="write", group="picture")
def set_mode(state: TvState, tv: TvArg, mode: Annotated[PictureMode, Field(description="The picture mode.")]) -> dict:
    """Set a set's picture mode."""
    _on(state, tv).picture_mode = mode
    return _reply(state, tv)


@operation(kind="write", group="picture")
def set_subtitles(
    state: TvState, tv: TvArg, subtitles: Annotated[Subtitles, Field(description="Subtitle language, or off.")]
) -> dict:
    """Turn a set's subtitles off or show them in a language."""
    _on(state, tv).subtitles = subtitles
    return _reply(state, tv)


# --- timer and child lock ----------------------------------------------------------------------


@operation(kind="write", group="timer")
def set_timer(
    state: TvState,
    tv: TvArg,
    minutes: Annotated[int, Field(ge=10, le=180, description="Minutes until the set turns off (10-180).")],
) -> dict:
    """Set a sleep timer that turns a set off after some minutes (replaces a running one)."""
    _on(state, tv).sleep_timer_min = minutes
    return _reply(state, tv)


@operation(kind="write", group="lock")
def set_child_lock(
    state: TvState, tv: TvArg, lock: Annotated[Power, Field(description="Turn the child lock on or off.")]
) -> dict:
    """Turn a set's child lock on or off (on: only kids channels and the kidsworld app); works while off."""
    switch(state.tvs[tv], "child_lock", lock, f"the {tv} tv child lock is already {lock}")
    return _reply(state, tv)


OPERATIONS = (
    get_status,
    get_guide,
    list_apps,
    set_power,
    set_input,
    set_channel,
    launch_app,
    pause,
    resume,
    set_volume,
    set_mute,
    set_mode,
    set_subtitles,
    set_timer,
    set_child_lock,
)
"""All operations, in the order the action space lists them."""
