"""Task templates of the security domain.

Every task is built from :class:`~toolprism.domains._phrasing.Request`s phrased from the fresh
world's state, and kept only if its gold replays with no refusal, every gold write changes the
state, and both of its forms are new. Single tasks ask one thing; compound tasks ask two to five
independent things of different devices (never the alarm mode, which other rules depend on);
compositional tasks read before they act ("switch on the floodlight where the last event
happened"), branch on the state ("lock every unlocked door that is closed") or need a
prerequisite (disarming before unlocking, motion recording before motion sensitivity).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolprism.domains._asks import AskKind
from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import Candidate, Simulator, chain, flip, other
from toolprism.domains._grammar import replied, slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains._plan import Builder, Quota, draft_plan
from toolprism.domains.security._ops import OPERATIONS, _arming_problem
from toolprism.domains.security._state import (
    ARMED,
    CAMERAS,
    DAYS,
    DOORS,
    ENTRY_DELAYS,
    FLOODLIGHTS,
    LOCKED_WHEN_ARMED,
    RECORDINGS,
    SCHEDULE_MODES,
    SENSITIVITIES,
    SENSORS,
    Camera,
    Door,
    Floodlight,
    SecurityState,
    Sensor,
)

Step = Callable[[SecurityState], Request | None]
"""One step of a template: its request on this world (None: not applicable)."""

SIM = Simulator(OPERATIONS)


# --- device requests: one change each, phrased from the current state --------------------------


LOCK = AskKind(
    "set_lock",
    {
        "locked": ("{lock:lock} the {door}", "make sure the {door} is {lock}"),
        "unlocked": ("{lock:unlock} the {door}", "set the {door} to {lock}"),
    },
    {
        "locked": (
            "{lock:lock} the {door}, I don't want anyone wandering in",
            "get the {door} {lock} up for the night",
        ),
        "unlocked": ("{lock:unlock} the {door}, a friend is dropping by", "leave the {door} {lock} for the cleaner"),
    },
    key="lock",
)
BYPASS = AskKind(
    "set_bypass",
    {
        "bypassed": ("{status:bypass} the {sensor} sensor", "set the {sensor} sensor to {status}"),
        "monitored": ("{status:monitor} the {sensor} sensor again", "set the {sensor} sensor back to {status}"),
    },
    {
        "bypassed": "{status:bypass} the {sensor} sensor so it can stay open without tripping the alarm",
        "monitored": "{status:monitor} the {sensor} sensor again, I want to know whenever it opens",
    },
    key="status",
)


def _lock(rng: random.Random, state: SecurityState, door: Door) -> Request | None:
    if state.doors[door].lock == "unlocked":
        return None if state.sensors[door].contact == "open" else LOCK.request(door=door, lock="locked")
    return None if state.mode in LOCKED_WHEN_ARMED else LOCK.request(door=door, lock="unlocked")


def _bypass(rng: random.Random, state: SecurityState, sensor: Sensor) -> Request | None:
    if state.mode != "disarmed":
        return None
    status = "bypassed" if state.sensors[sensor].status == "monitored" else "monitored"
    return BYPASS.request(sensor=sensor, status=status)


CAMERA_POWER = AskKind(
    "set_power",
    ("turn {power} the {camera} camera", "switch the {camera} camera {power}"),
    {
        "off": "switch the {camera} camera {power}, we want some privacy out there today",
        "on": "switch the {camera} camera {power}, I want eyes on that spot",
    },
    key="power",
)


def _camera_power(rng: random.Random, state: SecurityState, camera: Camera) -> Request | None:
    power = flip(state.cameras[camera].power)
    if power == "off" and state.mode == "away":
        return None
    return CAMERA_POWER.request(camera=camera, power=power)


RECORDING = AskKind(
    "set_recording",
    {
        "off": ("set the {camera} camera recording to {recording}", "turn the {camera} camera recording {recording}"),
        None: (
            "set the {camera} camera to {recording} recording",
            "change the {camera} camera recording to {recording}",
        ),
    },
    {
        "continuous": "have the {camera} camera record {recording} footage, I want every minute of it",
        "motion": "have the {camera} camera record on {recording} only, to save storage",
        "off": "set the {camera} camera recording to {recording}, the storage is full",
    },
    key="recording",
)


def _recording(rng: random.Random, state: SecurityState, camera: Camera, value: str | None = None) -> Request | None:
    current = state.cameras[camera]
    if current.power == "off":
        return None
    value = value or other(rng, RECORDINGS, current.recording)
    return RECORDING.request(camera=camera, recording=value)


SENSITIVITY = AskKind(
    "set_sensitivity",
    (
        "set the {camera} camera sensitivity to {sensitivity}",
        "change the {camera} camera's motion sensitivity to {sensitivity}",
    ),
    {
        "high": "make the {camera} camera's sensitivity {sensitivity}, it missed someone yesterday",
        "low": "turn the {camera} camera's sensitivity down to {sensitivity}, the trees keep setting it off",
        "medium": "put the {camera} camera's sensitivity on {sensitivity}, somewhere in between",
    },
    key="sensitivity",
)


def _sensitivity(rng: random.Random, state: SecurityState, camera: Camera) -> Request | None:
    current = state.cameras[camera]
    if current.power == "off" or current.recording != "motion":
        return None
    return SENSITIVITY.draw(rng, SENSITIVITIES, current.sensitivity, camera=camera)


FLOODLIGHT = AskKind(
    "set_floodlight",
    {
        "motion": ("set the {light} floodlight to {mode}", "switch the {light} floodlight to {mode} mode"),
        None: ("turn {mode} the {light} floodlight", "switch the {light} floodlight {mode}"),
    },
    {
        "on": "turn {mode} the {light} floodlight, it's pitch black out there",
        "off": "turn {mode} the {light} floodlight, it shines into the neighbours' windows",
        "motion": "have the {light} floodlight come on only with {mode}",
    },
    key="mode",
)


def _floodlight(rng: random.Random, state: SecurityState, light: Floodlight, mode: str | None = None) -> Request | None:
    mode = mode or other(rng, ("off", "on", "motion"), state.floodlights[light].mode)
    return FLOODLIGHT.request(light=light, mode=mode)


def _brightness(rng: random.Random, state: SecurityState, light: Floodlight) -> Request | None:
    current = state.floodlights[light]
    if current.mode == "off":
        return None
    level = other(rng, range(10, 101, 10), current.brightness)
    f, v = slot(light), slot(level)
    goal = (
        f"brighten the {f} floodlight to {v}%, I can't see the path"
        if level > current.brightness
        else f"dim the {f} floodlight to {v}%, it's far too harsh"
    )
    return request(
        [f"set the {f} floodlight to {v}% brightness", f"change the {f} floodlight brightness to {v}%"],
        goal,
        ("set_brightness", {"light": light, "brightness": level}),
    )


def _volume(rng: random.Random, state: SecurityState, level: int | None = None) -> Request | None:
    levels = [v for v in range(0 if state.mode == "disarmed" else 10, 101, 10) if v != state.siren_volume]
    level = rng.choice(levels) if level is None else level
    v = slot(level)
    if level == 0:
        direct = [f"mute the siren by setting its volume to {v}%", f"set the siren volume to {v}%"]
        goal = f"silence the siren completely, volume {v}%, while we test the sensors"
    else:
        direct = [f"set the siren volume to {v}%", f"change the siren to {v}% volume"]
        goal = (
            f"turn the siren up to {v}% so we can hear it upstairs"
            if level > state.siren_volume
            else f"turn the siren down to {v}%, it scares the dog"
        )
    return request(direct, goal, ("set_volume", {"volume": level}))


def _delay(rng: random.Random, state: SecurityState) -> Request | None:
    if state.mode != "disarmed":
        return None
    delay = other(rng, ENTRY_DELAYS, state.entry_delay)
    d = slot(delay)
    longer = ENTRY_DELAYS.index(delay) > ENTRY_DELAYS.index(state.entry_delay)
    goal = (
        f"give me {d} to disarm after coming in, the keypad is far from the door"
        if longer
        else f"cut the entry delay to {d}, that's plenty of time"
    )
    return request(
        [f"set the entry delay to {d}", f"change the entry delay to {d}"],
        goal,
        ("set_entry_delay", {"delay": delay}),
    )


SCHEDULE = AskKind(
    "set_schedule",
    {
        "off": ("set the {days} arming schedule to {mode}", "turn {mode} automatic arming on {days}"),
        None: ("set the {days} arming schedule to {mode}", "have the alarm arm in {mode} mode automatically on {days}"),
    },
    {
        "away": "arm the house in {mode} mode automatically on {days}, nobody's home then",
        "home": "have the alarm arm itself in {mode} mode on {days} nights",
        "night": "arm in {mode} mode automatically on {days}, once we're asleep",
        "off": "stop the automatic arming on {days} by turning it {mode}",
    },
    key="mode",
)


def _schedule(rng: random.Random, state: SecurityState) -> Request | None:
    days = rng.choice(DAYS)
    return SCHEDULE.draw(rng, SCHEDULE_MODES, state.schedule[days], days=days)


MODE = AskKind(
    "set_mode",
    {
        "disarmed": ("{mode:disarm} the alarm", "switch the alarm to {mode}"),
        None: ("arm the alarm in {mode} mode", "set the alarm to {mode} mode"),
    },
    {
        "away": "arm the alarm in {mode} mode, we're heading out",
        "night": "arm the alarm in {mode} mode, we're off to bed",
        "home": "arm the alarm in {mode} mode, we're staying in tonight",
        "disarmed": "{mode:disarm} the alarm, we're back home",
    },
    key="mode",
)


def _mode(rng: random.Random, state: SecurityState, mode: str | None = None) -> Request | None:
    choices = [m for m in ("disarmed", *ARMED) if m != state.mode]
    mode = mode or rng.choice(choices)
    if mode == state.mode or (mode in ARMED and _arming_problem(state, mode)):  # type: ignore[arg-type]
        return None
    return MODE.request(mode=mode)


STATUS = AskKind(
    "get_status",
    ("tell me the alarm status", "check whether the doors are locked"),
    ("find out whether the house is secure right now", "look up how the alarm and doors are set"),
)
CAMERA_STATUS = AskKind(
    "get_camera",
    ("tell me how the {camera} camera is set", "check the {camera} camera settings"),
    ("find out whether the {camera} camera is recording", "look up what the {camera} camera is doing"),
)
EVENTS = AskKind(
    "list_events",
    ("list today's events", "show me the recent events"),
    ("find out what the cameras picked up today", "run through what happened outside today"),
)


def _camera_change(rng: random.Random, state: SecurityState, camera: Camera) -> Request | None:
    for builder in rng.sample((_camera_power, _recording, _sensitivity), 3):
        made = builder(rng, state, camera)
        if made is not None:
            return made
    return None


def _light_change(rng: random.Random, state: SecurityState, light: Floodlight) -> Request | None:
    return (_brightness(rng, state, light) if rng.random() < 0.4 else None) or _floodlight(rng, state, light)


SLOTS: dict[str, Callable[[random.Random, SecurityState], Request | None]] = {
    **{f"door:{d}": (lambda rng, s, d=d: _lock(rng, s, d)) for d in DOORS},
    **{f"sensor:{x}": (lambda rng, s, x=x: _bypass(rng, s, x)) for x in SENSORS},
    **{f"camera:{c}": (lambda rng, s, c=c: _camera_change(rng, s, c)) for c in CAMERAS},
    **{f"light:{f}": (lambda rng, s, f=f: _light_change(rng, s, f)) for f in FLOODLIGHTS},
    "volume": _volume,
    "delay": _delay,
    "schedule": _schedule,
}
"""Independent things a compound task may ask for: no request in one slot affects another slot's
rules while the alarm mode stays as it is."""


# --- templates ---------------------------------------------------------------------------------


def _single(rng: random.Random, state: SecurityState) -> Candidate:
    if rng.random() < 0.1:
        return [_mode(rng, state)]
    target = rng.choice(list(SLOTS))
    return [SLOTS[target](rng, state)]


def _question(rng: random.Random, state: SecurityState) -> Candidate:
    pick = rng.random()
    if pick < 0.4:
        return [CAMERA_STATUS.request(camera=rng.choice(CAMERAS))]
    return [(STATUS if pick < 0.7 else EVENTS).request()]


def _compound(count: int) -> Builder:
    def template(rng: random.Random, state: SecurityState) -> Candidate:
        available = [target for target in SLOTS if SLOTS[target](random.Random(0), state) is not None]
        if len(available) < count:
            return None
        return [SLOTS[target](rng, state) for target in rng.sample(available, count)]

    return template


def _secure_and_arm(rng: random.Random, state: SecurityState) -> Candidate:
    """Read the doors, lock the closed unlocked ones, bypass what is open, then arm away or night."""
    target = other(rng, LOCKED_WHEN_ARMED, state.mode)
    if state.mode == "disarmed":
        bypass = [s for s in SENSORS if state.sensors[s].contact == "open" and state.sensors[s].status == "monitored"]
    else:
        bypass = []  # an armed alarm already ignores every open sensor
    locks = [d for d in DOORS if state.doors[d].lock == "unlocked" and state.sensors[d].contact == "closed"]
    gold = (
        ("get_status", {}),
        *(("set_lock", {"door": replied(d), "lock": "locked"}) for d in locks),
        *(("set_bypass", {"sensor": replied(s), "status": "bypassed"}) for s in bypass),
    )
    lock = slot("locked", "lock") if locks else "lock"
    by = slot("bypassed", "bypass") if bypass else "bypass"
    secure = request(
        [
            f"check the doors and windows, {lock} every unlocked door that is closed and {by} the sensor of "
            "anything left open",
            f"look at the doors and windows, then {lock} each closed door that is unlocked and {by} any open one",
        ],
        f"see what is open or unlocked, {lock} what can be locked and {by} whatever stays open",
        *gold,
    )
    return chain(SIM, state, [lambda s: secure, lambda s: _mode(rng, s, target)])


def _arm_step(rng: random.Random) -> Step:
    """Arm in a mode the state then allows (None when none is allowed)."""

    def step(s: SecurityState) -> Request | None:
        allowed = [m for m in ARMED if m != s.mode and _arming_problem(s, m) is None]
        return _mode(rng, s, rng.choice(allowed)) if allowed else None

    return step


def _alarm_change(rng: random.Random, state: SecurityState) -> Candidate:
    """Disarm, then do what only a disarmed alarm allows (maybe re-arm); or set up, bypass, then arm."""
    steps: list[Step] = []
    if state.mode != "disarmed":
        steps.append(lambda s: _mode(rng, s, "disarmed"))
        options: list[Step] = [
            lambda s: _delay(rng, s),
            lambda s: _bypass(rng, s, rng.choice(SENSORS)),
            lambda s: _lock(rng, s, rng.choice([d for d in DOORS if s.doors[d].lock == "locked"] or DOORS)),
            lambda s: _volume(rng, s, 0),
        ]
        steps.extend(rng.sample(options, rng.randint(1, 2)))
        if rng.random() < 0.5:
            steps.append(_arm_step(rng))
        return chain(SIM, state, steps)
    steps.append(lambda s: _delay(rng, s) if rng.random() < 0.5 else _volume(rng, s, rng.randrange(50, 101, 10)))
    for sensor in SENSORS:
        if state.sensors[sensor].contact == "open" and state.sensors[sensor].status == "monitored":
            steps.append(lambda s, x=sensor: _bypass(rng, s, x))
    steps.append(_arm_step(rng))
    return chain(SIM, state, steps)


def _event_response(rng: random.Random, state: SecurityState) -> Candidate:
    """Read the event log, then act where the latest event happened (floodlight or camera)."""
    place = state.events[-1].source
    read = request(
        ["check the latest event", "look up the most recent event"],
        "find out where the last thing was spotted outside",
        ("list_events", {}),
    )
    steps: list[Step] = [lambda s: read]
    if rng.random() < 0.5:
        light = state.floodlights[place]
        if light.mode != "on":
            gold = (("set_floodlight", {"light": replied(place), "mode": "on"}),)
            on = slot("on")
            steps.append(
                lambda s: request(
                    [f"turn {on} the floodlight where it happened", f"switch {on} the floodlight at that spot"],
                    f"light up that spot by turning its floodlight {on}",
                    *gold,
                )
            )
        level = other(rng, range(60, 101, 10), light.brightness)
        v = slot(level)
        steps.append(
            lambda s: request(
                [f"set that floodlight to {v}% brightness", f"make that floodlight {v}% bright"],
                f"brighten that floodlight to {v}%",
                ("set_brightness", {"light": replied(place), "brightness": level}),
            )
        )
    else:
        camera = state.cameras[place]
        if camera.power == "off":
            gold_on = (("set_power", {"camera": replied(place), "power": "on"}),)
            on = slot("on")
            steps.append(
                lambda s: request(
                    [f"turn {on} the camera there", f"switch {on} the camera at that spot"],
                    f"get the camera covering that spot {on}",
                    *gold_on,
                )
            )
        value = other(rng, ("continuous", "motion"), camera.recording)
        v = slot(value)
        steps.append(
            lambda s: request(
                [f"set that camera to {v} recording", f"switch the camera there to {v} recording"],
                f"have the camera covering that spot record {v} footage",
                ("set_recording", {"camera": replied(place), "recording": value}),
            )
        )
    return chain(SIM, state, steps)


def _camera_setup(rng: random.Random, state: SecurityState) -> Candidate:
    """One or two cameras: switch on if off, record on motion, set the motion sensitivity."""
    steps: list[Step] = []
    for camera in rng.sample(CAMERAS, rng.choice((1, 1, 2))):
        current = state.cameras[camera]
        if current.power == "off":
            steps.append(lambda s, c=camera: _camera_power(rng, s, c))
        if current.recording != "motion":
            steps.append(lambda s, c=camera: _recording(rng, s, c, "motion"))
        steps.append(lambda s, c=camera: _sensitivity(rng, s, c))
    if len(steps) < 2:
        return None
    return chain(SIM, state, steps)


def _copy_camera(rng: random.Random, state: SecurityState) -> Candidate:
    """Read camera A, then give camera B the same recording (or sensitivity)."""
    source, target = rng.sample(CAMERAS, 2)
    a, src, dst = state.cameras[source], slot(source), slot(target)
    read = request(
        [f"check the {src} camera settings", f"look up how the {src} camera is set"],
        f"find out how the {src} camera is set up",
        ("get_camera", {"camera": source}),
    )
    steps: list[Step] = [lambda s: read]
    if state.cameras[target].power == "off":
        steps.append(lambda s: _camera_power(rng, s, target))
    if a.recording == "motion" and rng.random() < 0.6:
        if state.cameras[target].recording != "motion":
            steps.append(lambda s: _recording(rng, s, target, "motion"))
        steps.append(
            lambda s: request(
                [
                    f"give the {dst} camera the same sensitivity as the {src} camera",
                    f"match the {dst} camera's sensitivity to the {src} one",
                ],
                f"make the {dst} camera exactly as sensitive as the {src} one",
                ("set_sensitivity", {"camera": target, "sensitivity": replied(a.sensitivity)}),
            )
        )
    else:
        steps.append(
            lambda s: request(
                [
                    f"set the {dst} camera to record the same way as the {src} camera",
                    f"match the {dst} camera's recording to the {src} one",
                ],
                f"have the {dst} camera record just like the {src} one does",
                ("set_recording", {"camera": target, "recording": replied(a.recording)}),
            )
        )
    return chain(SIM, state, steps)


def _floodlight_setup(rng: random.Random, state: SecurityState) -> Candidate:
    """One or two floodlights: switch on or to motion (needed when off), then set the brightness."""
    steps: list[Step] = []
    for light in rng.sample(FLOODLIGHTS, rng.choice((1, 2))):
        mode = other(rng, ("on", "motion"), state.floodlights[light].mode)
        steps.append(lambda s, f=light, m=mode: _floodlight(rng, s, f, m))
        steps.append(lambda s, f=light: _brightness(rng, s, f))
    return chain(SIM, state, steps)


def _outdoor_setup(rng: random.Random, state: SecurityState) -> Candidate:
    """Six calls outside: two floodlights (mode, then brightness) and a camera in two dependent steps."""
    cameras = [c for c in CAMERAS if state.cameras[c].power == "off" or state.cameras[c].recording != "motion"]
    if not cameras:
        return None
    camera = rng.choice(cameras)
    steps: list[Step] = []
    for light in rng.sample(FLOODLIGHTS, 2):
        mode = other(rng, ("on", "motion"), state.floodlights[light].mode)
        steps.append(lambda s, f=light, m=mode: _floodlight(rng, s, f, m))
        steps.append(lambda s, f=light: _brightness(rng, s, f))
    if state.cameras[camera].power == "off":
        steps.append(lambda s: _camera_power(rng, s, camera))
        steps.append(lambda s: _recording(rng, s, camera))
    else:
        steps.append(lambda s: _recording(rng, s, camera, "motion"))
        steps.append(lambda s: _sensitivity(rng, s, camera))
    return chain(SIM, state, steps)


def _siren_check(rng: random.Random, state: SecurityState) -> Candidate:
    """Read the alarm; if it is armed set the siren to a level, otherwise mute it."""
    level = other(rng, range(30, 101, 10), state.siren_volume)
    value = level if state.mode in ARMED else 0
    if value == state.siren_volume:
        return None
    read = request(
        ["check the alarm status", "look up whether the alarm is armed"],
        "find out whether the alarm is armed",
        ("get_status", {}),
    )
    high, mute = (slot(v) if v == value else v for v in (level, 0))
    conditional = request(
        [
            f"if it is armed, set the siren to {high}%, otherwise mute it at {mute}%",
            f"set the siren to {high}% if the alarm is armed, or to {mute}% if it is disarmed",
        ],
        f"have the siren at {high}% when armed, and silent at {mute}% when disarmed",
        ("set_volume", {"volume": value}),
    )
    return chain(SIM, state, [lambda s: read, lambda s: conditional])


def _lock_sweep(rng: random.Random, state: SecurityState) -> Candidate:
    """Read the doors and lock every unlocked one that is closed, maybe switch a floodlight to motion."""
    locks = [d for d in DOORS if state.doors[d].lock == "unlocked" and state.sensors[d].contact == "closed"]
    if not locks:
        return None
    lock = slot("locked", "lock")
    sweep = request(
        [
            f"check the doors and {lock} every unlocked one that is closed",
            f"{lock} any closed door that is still unlocked",
        ],
        f"make sure every closed door is {slot('locked')}, locking the ones that are not",
        ("get_status", {}),
        *(("set_lock", {"door": replied(d), "lock": "locked"}) for d in locks),
    )
    steps: list[Step] = [lambda s: sweep]
    if rng.random() < 0.5:
        light = rng.choice(FLOODLIGHTS)
        steps.append(lambda s: _floodlight(rng, s, light, "motion"))
    return chain(SIM, state, steps)


PLAN = (
    Quota("single", _single, 20),
    Quota("question", _question, 8),
    Quota("compound_2", _compound(2), 20, "compound"),
    Quota("compound_3", _compound(3), 25, "compound"),
    Quota("compound_4", _compound(4), 20, "compound"),
    Quota("compound_5", _compound(5), 11, "compound"),
    Quota("lock_sweep", _lock_sweep, 3, "compositional", carry=True),
    Quota("siren_check", _siren_check, 2, "compositional", carry=True),
    Quota("secure_and_arm", _secure_and_arm, 4, "compositional", carry=True),
    Quota("alarm_change", _alarm_change, 4, "compositional", carry=True),
    Quota("floodlight_setup", _floodlight_setup, 2, "compositional", carry=True),
    Quota("outdoor_setup", _outdoor_setup, 2, "compositional", carry=True),
    Quota("event_response", _event_response, 3, "compositional", carry=True),
    Quota("camera_setup", _camera_setup, 3, "compositional", carry=True),
    Quota("copy_camera", _copy_camera, 2, "compositional", carry=True),
)
"""Template, drafts wanted per seed, builder of one candidate, kind. A compositional template
that finds too few candidates in a world passes its shortfall on to the next one."""


def drafts(state: SecurityState, world_seed: int) -> list[TaskDraft]:
    """Every task on the fresh world ``state`` of ``world_seed``, in template order (deterministic).

    A template proposes candidates until it has its count (or a bounded number of tries); a
    candidate is kept if it is applicable, replays without refusal, changes the state with every
    write, and has two queries not seen before.
    """
    rng = random.Random(f"security/tasks/{world_seed}")
    return draft_plan(rng, state, PLAN, accept=lambda d: SIM.replays(state, d.gold))
