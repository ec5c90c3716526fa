"""The media-player native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError` (checked before any mutation):

- a zone that is off accepts nothing but ``set_power``; switching to the current power is refused;
- playlists need the ``streaming`` source, stations the ``radio`` source, repeat modes ``streaming``;
- ``pause`` needs a zone that is playing, ``resume`` one that is paused;
- the patio is capped at :data:`~._state.PATIO_MAX_VOLUME` percent (presets included);
- ``cancel_timer`` needs a running sleep timer.

Switching the source stops playback; turning a zone off stops playback and clears its sleep timer.
Other writes overwrite and succeed even when nothing changes.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import dumped, listing, refuse_if, require_on, switch, transition
from toolprism.domains.media_player._state import (
    PATIO_MAX_VOLUME,
    Band,
    MediaState,
    Order,
    Player,
    Playlist,
    Power,
    PresetName,
    Repeat,
    Source,
    Station,
    Zone,
)

ZoneArg = Annotated[Zone, Field(description="The zone whose player to use.")]


def _zone_reply(state: MediaState, zone: Zone) -> dict:
    return dumped("zone", zone, state.zones[zone])


def _on(state: MediaState, zone: Zone) -> Player:
    """The zone's player, refusing if it is off."""
    return require_on(state.zones[zone], f"the {zone} player is off; turn it on first")


def _on_source(state: MediaState, zone: Zone, source: Source, what: str) -> Player:
    player = _on(state, zone)
    refuse_if(
        player.source != source, f"the {zone} player is on {player.source}; switch its source to {source} to {what}"
    )
    return player


def _check_volume(zone: Zone, volume: int) -> None:
    refuse_if(
        zone == "patio" and volume > PATIO_MAX_VOLUME,
        f"the patio volume is capped at {PATIO_MAX_VOLUME} for the neighbours",
    )


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="status")
def get_status(state: MediaState, zone: ZoneArg) -> dict:
    """Get a zone's player state: power, source, playback, playlist, station, volume, tone, repeat and sleep timer."""
    return _zone_reply(state, zone)


@operation(kind="read", group="presets")
def list_presets(state: MediaState) -> dict:
    """List the sound presets with the volume, bass and treble each one applies."""
    return {"presets": listing(state.presets)}


@operation(kind="read", group="library")
def list_favorites(state: MediaState) -> dict:
    """List the favourite slots, each a streaming playlist or a radio station."""
    return {"favorites": [f.model_dump(mode="json") for f in state.favorites]}


# --- power and source --------------------------------------------------------------------------


@operation(kind="write", group="power")
def set_power(
    state: MediaState, zone: ZoneArg, power: Annotated[Power, Field(description="Turn the player on or off.")]
) -> dict:
    """Turn a zone's player on or off; off stops playback and clears the sleep timer."""
    player = state.zones[zone]
    switch(player, "power", power, f"the {zone} player is already {power}")
    if power == "off":
        player.playback = "stopped"
        player.sleep_timer_min = None
    return _zone_reply(state, zone)


@operation(kind="write", group="source")
def set_source(
    state: MediaState, zone: ZoneArg, source: Annotated[Source, Field(description="The input to play from.")]
) -> dict:
    """Switch a zone's input source; playback stops until something is played on the new source."""
    player = _on(state, zone)
    if player.source != source:
        player.source = source
        player.playback = "stopped"
    return _zone_reply(state, zone)


# --- playback ----------------------------------------------------------------------------------


@operation(kind="write", group="playback")
def play_playlist(
    state: MediaState,
    zone: ZoneArg,
    playlist: Annotated[Playlist, Field(description="The playlist to play.")],
    order: Annotated[Order, Field(description="Play the tracks in order or shuffled.")],
) -> dict:
    """Play a playlist in a zone from the start; the zone's source must be streaming."""
    player = _on_source(state, zone, "streaming", "play a playlist")
    player.playlist, player.order, player.playback = playlist, order, "playing"
    return _zone_reply(state, zone)


@operation(kind="write", group="playback")
def tune_radio(
    state: MediaState, zone: ZoneArg, station: Annotated[Station, Field(description="The radio station.")]
) -> dict:
    """Tune a zone to a radio station and play it; the zone's source must be radio."""
    player = _on_source(state, zone, "radio", "tune a station")
    player.station, player.playback = station, "playing"
    return _zone_reply(state, zone)


@operation(kind="write", group="playback")
def pause(state: MediaState, zone: ZoneArg) -> dict:
    """Pause what a zone is playing; refused if it is not playing."""
    player = _on(state, zone)
    refusal = f"nothing is playing in the {zone} (playback is {player.playback})"
    transition(player, "playback", "playing", "paused", refusal)
    return _zone_reply(state, zone)


@operation(kind="write", group="playback")
def resume(state: MediaState, zone: ZoneArg) -> dict:
    """Resume a paused zone where it left off; refused if it is not paused."""
    player = _on(state, zone)
    transition(player, "playback", "paused", "playing", f"the {zone} is not paused (playback is {player.playback})")
    return _zone_reply(state, zone)


@operation(kind="write", group="playback")
def set_repeat(
    state: MediaState, zone: ZoneArg, repeat: Annotated[Repeat, Field(description="Repeat one track, all, or off.")]
) -> dict:
    """Set a zone's repeat mode; the zone's source must be streaming."""
    _on_source(state, zone, "streaming", "set a repeat mode").repeat = repeat
    return _zone_reply(state, zone)


# --- sound -------------------------------------------------------------------------------------


@operation(kind="write", group="sound")
def set_volume(
    state: MediaState,
    zone: ZoneArg,
    volume: Annotated[int, Field(ge=0, le=100, description="Volume in percent (0-100; the patio at most 80).")],
) -> dict:
    """Set a zone's volume; the patio is capped at 80."""
    player = _on(state, zone)
    _check_volume(zone, volume)
    player.volume = volume
    return _zone_reply(state, zone)


@operation(kind="write", group="sound")
def set_tone(
    state: MediaState,
    zone: ZoneArg,
    band: Annotated[Band, Field(description="Which tone control to set.")],
    level: Annotated[int, Field(ge=-10, le=10, description="Level in steps from -10 to 10 (0 is flat).")],
) -> dict:
    """Set a zone's bass or treble level."""
    setattr(_on(state, zone), band, level)
    return _zone_reply(state, zone)


@operation(kind="write", group="presets")
def apply_preset(
    state: MediaState, zone: ZoneArg, preset: Annotated[PresetName, Field(description="The sound preset.")]
) -> dict:
    """Apply a sound preset's volume, bass and treble to a zone (see list_presets)."""
    player = _on(state, zone)
    values = state.presets[preset]
    _check_volume(zone, values.volume)
    player.volume, player.bass, player.treble = values.volume, values.bass, values.treble
    return _zone_reply(state, zone)


# --- sleep timer -------------------------------------------------------------------------------


@operation(kind="write", group="timer")
def set_timer(
    state: MediaState,
    zone: ZoneArg,
    minutes: Annotated[int, Field(ge=5, le=120, description="Minutes until the zone turns off (5-120).")],
) -> dict:
    """Set a sleep timer that turns a zone off after some minutes (replaces a running one)."""
    _on(state, zone).sleep_timer_min = minutes
    return _zone_reply(state, zone)


@operation(kind="write", group="timer")
def cancel_timer(state: MediaState, zone: ZoneArg) -> dict:
    """Cancel a zone's sleep timer; refused if none is running."""
    player = _on(state, zone)
    refuse_if(player.sleep_timer_min is None, f"the {zone} has no sleep timer running")
    player.sleep_timer_min = None
    return _zone_reply(state, zone)


OPERATIONS = (
    get_status,
    list_presets,
    list_favorites,
    set_power,
    set_source,
    play_playlist,
    tune_radio,
    pause,
    resume,
    set_repeat,
    set_volume,
    set_tone,
    apply_preset,
    set_timer,
    cancel_timer,
)
"""All operations, in the order the action space lists them."""
