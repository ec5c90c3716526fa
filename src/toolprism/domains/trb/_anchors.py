"""Clean anchors: 12 stored argument sets per tool and the requests that state them.

Each anchor is one user request for one tool (ToolRobustBench's single-step task: select the tool,
bind the arguments, interpret the return). Its arguments are drawn once from
``random.Random(f"trb/anchors/{tool}")`` (so they are fixed, whatever the run seed), its request is
one of the tool's three hand-written phrasings (anchor ``i`` uses phrasing ``i % 3``), and every
argument value is written through :func:`~toolprism.domains._grammar.slot`, so the user-intent
subtypes know where the request states it. Within an anchor, no two stated values share their
text, so each span states one argument. Every request asks for the tool's answer field
(:data:`~toolprism.domains.trb._catalog.ANSWERS`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, get_args

from toolprism.domains._grammar import slot
from toolprism.domains.trb._fixtures import (
    CITIES,
    Contact,
    Cuisine,
    Currency,
    Mode,
    Product,
    Restaurant,
    Room,
    Store,
    Zone,
)
from toolprism.schema import JSON

ANCHORS_PER_TOOL = 12
Args = dict[str, JSON]
Phrasing = Callable[[Args], str]


def _city(value: str) -> str:
    return slot(value, value.title())


def _s(value: JSON) -> str:
    return slot(value)


def _pair(rng: random.Random, options: tuple) -> tuple:
    a, b = rng.sample(list(options), 2)
    return a, b


_CURRENCIES = get_args(Currency)
_ZONES = get_args(Zone)
_MODES = get_args(Mode)
_PRODUCTS = get_args(Product)
_STORES = get_args(Store)
_CONTACTS = get_args(Contact)
_RESTAURANTS = get_args(Restaurant)
_CUISINES = get_args(Cuisine)
_ROOMS = get_args(Room)


def _trip(rng: random.Random) -> Args:
    origin, destination = _pair(rng, CITIES)
    return {"origin": origin, "destination": destination, "mode": rng.choice(_MODES)}


def _finance(rng: random.Random) -> Args:
    return {
        "principal": rng.choice((5000, 12000, 25000, 40000, 75000, 150000, 220000, 310000)),
        "annual_rate_pct": rng.randint(2, 14),
        "years": rng.choice((3, 5, 8, 10, 15, 20, 25, 30)),
    }


GENERATORS: dict[str, Callable[[random.Random], Args]] = {
    "compute_route": _trip,
    "estimate_travel_time": _trip,
    "find_nearest_station": lambda r: {
        "city": r.choice(("paris", "berlin", "rome", "amsterdam", "lisbon", "oslo")),
        "station_type": r.choice(("train", "bus", "metro", "ferry")),
    },
    "convert_currency": lambda r: dict(
        zip(("from_currency", "to_currency"), _pair(r, _CURRENCIES), strict=True),
        amount=r.choice((40, 75, 120, 250, 480, 900, 1500, 3200, 7500, 12000)),
    ),
    "get_exchange_rate": lambda r: dict(zip(("base_currency", "quote_currency"), _pair(r, _CURRENCIES), strict=True)),
    "calculate_loan_payment": _finance,
    "compute_compound_interest": _finance,
    "get_current_weather": lambda r: {"city": r.choice(CITIES), "units": r.choice(("metric", "imperial"))},
    "get_weather_forecast": lambda r: {
        "city": r.choice(CITIES),
        "days_ahead": r.randint(1, 7),
        "units": r.choice(("metric", "imperial")),
    },
    "get_air_quality": lambda r: {"city": r.choice(CITIES), "pollutant": r.choice(("pm25", "pm10", "ozone", "no2"))},
    "convert_timezone": lambda r: dict(
        zip(("from_zone", "to_zone"), _pair(r, _ZONES), strict=True), hour=r.randint(0, 23)
    ),
    "get_local_time": lambda r: {"city": r.choice(CITIES), "hour_format": r.choice(("12h", "24h"))},
    "count_business_days": lambda r: (lambda a, b: {"month": r.randint(1, 12), "start_day": a, "end_day": b})(
        *sorted(r.sample(range(1, 29), 2))
    ),
    "add_calendar_event": lambda r: {
        "title": r.choice(("dentist", "team_meeting", "gym", "lunch", "haircut", "book_club")),
        "month": r.randint(1, 12),
        "day": r.randint(13, 28),
        "hour": r.randint(8, 11) if r.random() < 0.5 else r.randint(14, 20),
    },
    "convert_units": lambda r: dict(
        zip(("from_unit", "to_unit"), _pair(r, ("meters", "feet", "kilometers", "miles", "inches")), strict=True),
        value=r.choice((3, 12, 25, 60, 100, 250, 800, 1500, 4000)),
    ),
    "convert_temperature": lambda r: dict(
        zip(("from_scale", "to_scale"), _pair(r, ("celsius", "fahrenheit", "kelvin")), strict=True),
        value=r.choice((-15, 0, 18, 21, 37, 60, 100, 212, 300)),
    ),
    "calculate_area": lambda r: dict(
        zip(("width_m", "height_m"), r.sample((4, 6, 9, 12, 15, 20, 35, 50), 2), strict=True),
        shape=r.choice(("rectangle", "triangle", "ellipse")),
    ),
    "check_product_stock": lambda r: {"product": r.choice(_PRODUCTS), "store": r.choice(_STORES)},
    "get_product_price": lambda r: {"product": r.choice(_PRODUCTS), "store": r.choice(_STORES)},
    "place_order": lambda r: {"product": r.choice(_PRODUCTS), "quantity": r.randint(1, 9), "store": r.choice(_STORES)},
    "track_shipment": lambda r: {
        "shipment_id": f"SH{r.randint(1000, 9999)}",
        "carrier": r.choice(("dhl", "ups", "fedex", "dpd")),
    },
    "search_flights": lambda r: dict(
        zip(("origin", "destination"), _pair(r, CITIES), strict=True), day=r.randint(1, 28)
    ),
    "get_flight_status": lambda r: {"flight_number": f"TR{r.randint(100, 999)}", "day": r.randint(1, 28)},
    "check_hotel_availability": lambda r: {
        "city": r.choice(CITIES),
        "nights": r.randint(1, 14),
        "room_type": r.choice(("single", "double", "suite", "family")),
    },
    "book_hotel_room": lambda r: {
        "city": r.choice(CITIES),
        "nights": r.randint(1, 14),
        "room_type": r.choice(("single", "double", "suite", "family")),
    },
    "send_email": lambda r: {
        "recipient": r.choice(_CONTACTS),
        "topic": r.choice(("invoice", "meeting_notes", "travel_plans", "birthday_party", "project_update")),
        "priority": r.choice(("low", "normal", "high")),
    },
    "send_sms": lambda r: {
        "recipient": r.choice(_CONTACTS),
        "template": r.choice(("running_late", "call_me", "on_my_way", "meeting_moved")),
    },
    "schedule_reminder": lambda r: {
        "task": r.choice(("pay_rent", "call_mom", "water_plants", "take_medicine", "renew_passport")),
        "day": r.randint(1, 28),
        "hour": r.randint(7, 22),
    },
    "search_restaurants": lambda r: {"city": r.choice(CITIES), "cuisine": r.choice(_CUISINES)},
    "get_restaurant_rating": lambda r: {
        "restaurant": r.choice(_RESTAURANTS),
        "source": r.choice(("critics", "diners", "guides")),
    },
    "reserve_table": lambda r: {
        "restaurant": r.choice(_RESTAURANTS),
        "party_size": r.randint(2, 10),
        "hour": r.randint(12, 22),
    },
    "calculate_bmi": lambda r: {"weight_kg": r.randint(45, 120), "height_cm": r.randint(150, 200)},
    "calculate_calories_burned": lambda r: {
        "activity": r.choice(("running", "cycling", "swimming", "walking", "rowing")),
        "minutes": r.choice((15, 20, 30, 45, 60, 90, 120)),
        "weight_kg": r.randint(50, 110),
    },
    "get_nutrition_facts": lambda r: {
        "food": r.choice(("apple", "banana", "rice", "oats", "chicken", "salmon", "lentils", "almonds")),
        "grams": r.choice((30, 50, 80, 120, 150, 200, 250, 300)),
    },
    "calculate_percentage": lambda r: (lambda whole: {"part": r.randint(1, whole - 1), "whole": whole})(
        r.choice((40, 80, 150, 250, 400, 1200, 5000))
    ),
    "calculate_tip": lambda r: {
        "bill_eur": r.choice((24, 37, 58, 86, 112, 145, 230)),
        "tip_pct": r.choice((5, 10, 12, 15, 18, 20)),
        "people": r.randint(2, 8),
    },
    "translate_phrase": lambda r: {
        "phrase": r.choice(("good_morning", "thank_you", "where_is_the_station", "how_much_is_it", "the_bill_please")),
        "target_language": r.choice(("french", "german", "spanish", "italian", "portuguese")),
    },
    "get_thermostat_reading": lambda r: {
        "room": r.choice(_ROOMS),
        "sensor": r.choice(("temperature", "humidity", "co2")),
    },
    "set_thermostat": lambda r: {
        "room": r.choice(_ROOMS),
        "target_c": r.randint(17, 26),
        "hvac_mode": r.choice(("heat", "cool", "auto", "eco")),
    },
    "set_light": lambda r: {
        "room": r.choice(_ROOMS),
        "brightness_pct": r.choice((10, 25, 40, 55, 70, 85, 100)),
        "color": r.choice(("warm", "neutral", "cool")),
    },
}
"""Tool → a draw of one anchor's arguments."""


def _a(a: Args) -> dict[str, str]:
    """Every argument as its slot (cities title-cased)."""
    return {
        k: _city(v) if k in ("city", "origin", "destination") else _s(v)  # type: ignore[arg-type]
        for k, v in a.items()
    }


def _p(*templates: str) -> tuple[Phrasing, ...]:
    return tuple((lambda a, t=t: t.format(**_a(a))) for t in templates)


PHRASINGS: dict[str, tuple[Phrasing, ...]] = {
    "compute_route": _p(
        "How long is the {mode} route from {origin} to {destination}, in kilometres?",
        "Work out the route from {origin} to {destination} for {mode} and tell me its distance in km.",
        "I need the distance of the route between {origin} and {destination} when {mode}.",
    ),
    "estimate_travel_time": _p(
        "How many minutes does the trip from {origin} to {destination} take by {mode}?",
        "Estimate my travel time from {origin} to {destination}, {mode}, in minutes.",
        "If I go from {origin} to {destination} using {mode}, how long will the journey take?",
    ),
    "find_nearest_station": _p(
        "What is the nearest {station_type} station to the centre of {city}?",
        "Find me the closest {station_type} station in {city} and tell me its name.",
        "Which {station_type} station is nearest when I'm in central {city}?",
    ),
    "convert_currency": _p(
        "Convert {amount} {from_currency} to {to_currency}.",
        "How much is {amount} {from_currency} in {to_currency}?",
        "I have {amount} {from_currency}; what do I get in {to_currency}?",
    ),
    "get_exchange_rate": _p(
        "What is today's exchange rate from {base_currency} to {quote_currency}?",
        "How many {quote_currency} does one {base_currency} buy today?",
        "Look up the {base_currency} to {quote_currency} rate for me.",
    ),
    "calculate_loan_payment": _p(
        "What is the monthly payment on a loan of {principal} euros at {annual_rate_pct}% a year over {years} years?",
        "I'm borrowing {principal} euros for {years} years at {annual_rate_pct} percent: what do I pay each month?",
        "Calculate the monthly instalment for a {principal} euro loan, {annual_rate_pct}% yearly rate, {years} years.",
    ),
    "compute_compound_interest": _p(
        "If I invest {principal} euros at {annual_rate_pct}% a year for {years} years, what will I have?",
        "What does {principal} euros grow to after {years} years at {annual_rate_pct} percent compounded yearly?",
        "Project my savings: {principal} euros, {annual_rate_pct}% interest, {years} years. Final balance?",
    ),
    "get_current_weather": _p(
        "What's the temperature in {city} right now, in {units} units?",
        "How warm is it in {city} at the moment? Give me the temperature in {units}.",
        "Tell me the current temperature in {city} ({units}).",
    ),
    "get_weather_forecast": _p(
        "What's the weather going to be like in {city} in {days_ahead} days? Use {units} units.",
        "Give me the forecast condition for {city}, {days_ahead} days from now, in {units}.",
        "Will it be sunny in {city} {days_ahead} days ahead? Forecast in {units} units, please.",
    ),
    "get_air_quality": _p(
        "What is the air-quality index for {pollutant} in {city}?",
        "How bad is the {pollutant} level in {city} today? Give me the AQI.",
        "Check the {city} air quality index for {pollutant}.",
    ),
    "convert_timezone": _p(
        "If it is {hour}:00 in {from_zone}, what hour is it in {to_zone}?",
        "Convert hour {hour} from {from_zone} to {to_zone}.",
        "My meeting is at {hour} o'clock {from_zone}; which hour is that in {to_zone}?",
    ),
    "get_local_time": _p(
        "What time is it in {city} right now? Use the {hour_format} clock.",
        "Tell me the local time in {city} in {hour_format} format.",
        "I need the current time in {city}, {hour_format} please.",
    ),
    "count_business_days": _p(
        "How many business days are there from day {start_day} to day {end_day} of month {month} of 2026?",
        "Count the working days between day {start_day} and day {end_day} of month {month}, 2026, both included.",
        "In month {month} of 2026, how many weekdays fall from day {start_day} through day {end_day}?",
    ),
    "add_calendar_event": _p(
        "Add {title} to my calendar on day {day} of month {month} at {hour}:00 and give me the event id.",
        "Put a {title} event in my calendar for month {month}, day {day}, hour {hour}.",
        "Schedule {title} on {day}/{month} at {hour} o'clock in my calendar.",
    ),
    "convert_units": _p(
        "Convert {value} {from_unit} to {to_unit}.",
        "How many {to_unit} are {value} {from_unit}?",
        "I measured {value} {from_unit}; what is that in {to_unit}?",
    ),
    "convert_temperature": _p(
        "Convert {value} degrees {from_scale} to {to_scale}.",
        "What is {value} {from_scale} on the {to_scale} scale?",
        "The reading says {value} in {from_scale}; how much is that in {to_scale}?",
    ),
    "calculate_area": _p(
        "What is the area of a {shape} {width_m} m wide and {height_m} m high?",
        "Calculate the area in square metres of a {shape} with width {width_m} and height {height_m} metres.",
        "My plot is a {shape}, {width_m} by {height_m} metres. How many square metres is it?",
    ),
    "check_product_stock": _p(
        "How many {product} units does the {store} store have in stock?",
        "Is the {product} in stock at {store}? Tell me how many are available.",
        "Check the {store} stock of {product} for me.",
    ),
    "get_product_price": _p(
        "What does the {product} cost at the {store} store?",
        "Give me the current price of the {product} at {store}.",
        "How much is a {product} at {store} right now?",
    ),
    "place_order": _p(
        "Order {quantity} {product} from the {store} store and give me the order id.",
        "Please place an order for {quantity} units of {product} at {store}.",
        "Buy {quantity} x {product} from {store} for me.",
    ),
    "track_shipment": _p(
        "Where is my {carrier} shipment {shipment_id}?",
        "Track shipment {shipment_id} with {carrier} and tell me its status.",
        "What's the status of parcel {shipment_id}, shipped by {carrier}?",
    ),
    "search_flights": _p(
        "What is the cheapest flight fare from {origin} to {destination} on June {day}?",
        "Search flights {origin} to {destination} for day {day} of June and tell me the lowest fare.",
        "I want to fly from {origin} to {destination} on June {day}: how cheap can it get?",
    ),
    "get_flight_status": _p(
        "Is flight {flight_number} on June {day} on time?",
        "What's the status of flight {flight_number} on day {day} of June?",
        "Check flight {flight_number} for June {day}, please.",
    ),
    "check_hotel_availability": _p(
        "How many {room_type} rooms are free in {city} for {nights} nights?",
        "Check hotel availability in {city}: a {room_type} room for {nights} nights. How many are left?",
        "Are there {room_type} rooms available in {city} for {nights} nights?",
    ),
    "book_hotel_room": _p(
        "Book a {room_type} room in {city} for {nights} nights and give me the booking id.",
        "Please reserve a hotel {room_type} room in {city}, {nights} nights.",
        "I need a {room_type} hotel room in {city} for {nights} nights: book it.",
    ),
    "send_email": _p(
        "Email {recipient} about the {topic} with {priority} priority.",
        "Send an e-mail to {recipient} on {topic}, priority {priority}, and give me the message id.",
        "Write {recipient} an email regarding {topic}; mark it {priority} priority.",
    ),
    "send_sms": _p(
        "Text {recipient} the {template} message.",
        "Send {recipient} an SMS saying {template}.",
        "Please send the {template} text message to {recipient}.",
    ),
    "schedule_reminder": _p(
        "Remind me to {task} on day {day} at {hour}:00.",
        "Set a reminder for {task} on day {day} at hour {hour}.",
        "Schedule a reminder: {task}, day {day}, {hour} o'clock.",
    ),
    "search_restaurants": _p(
        "What's the best {cuisine} restaurant in {city}?",
        "Search {city} for {cuisine} restaurants and tell me the top one.",
        "I'm craving {cuisine} food in {city}; which restaurant is best rated?",
    ),
    "get_restaurant_rating": _p(
        "What rating do the {source} give {restaurant}?",
        "How is {restaurant} rated by {source}?",
        "Look up the {source} rating of {restaurant}.",
    ),
    "reserve_table": _p(
        "Reserve a table for {party_size} at {restaurant} at {hour}:00 today.",
        "Book {restaurant} for {party_size} people at hour {hour} and give me the reservation id.",
        "Get us a table at {restaurant} today, party of {party_size}, {hour} o'clock.",
    ),
    "calculate_bmi": _p(
        "What is the BMI of someone weighing {weight_kg} kg at {height_cm} cm tall?",
        "Calculate my body-mass index: {weight_kg} kilograms, {height_cm} centimetres.",
        "I'm {height_cm} cm and {weight_kg} kg. What's my BMI?",
    ),
    "calculate_calories_burned": _p(
        "How many calories do I burn {activity} for {minutes} minutes at {weight_kg} kg?",
        "Estimate the kilocalories burned by {minutes} minutes of {activity} for a {weight_kg} kg person.",
        "I weigh {weight_kg} kg and did {activity} for {minutes} minutes; calories burned?",
    ),
    "get_nutrition_facts": _p(
        "How many calories are in {grams} grams of {food}?",
        "Give me the energy content of a {grams} g portion of {food}.",
        "What are the nutrition facts for {grams} grams of {food}? I mostly care about kcal.",
    ),
    "calculate_percentage": _p(
        "What percentage of {whole} is {part}?",
        "{part} out of {whole}: what percent is that?",
        "Calculate {part} as a percentage of {whole}.",
    ),
    "calculate_tip": _p(
        "The bill is {bill_eur} euros and we tip {tip_pct}%; split between {people} people, what does each pay?",
        "Calculate a {tip_pct} percent tip on {bill_eur} euros shared by {people} people: amount per person?",
        "We are {people} people with a {bill_eur} euro bill and want to leave {tip_pct}% tip. Each pays?",
    ),
    "translate_phrase": _p(
        "How do you say '{phrase}' in {target_language}?",
        "Translate '{phrase}' into {target_language}.",
        "What's the {target_language} for '{phrase}'?",
    ),
    "get_thermostat_reading": _p(
        "What does the {sensor} sensor read in the {room}?",
        "Read the {room} thermostat's {sensor} for me.",
        "Check the current {sensor} in the {room}.",
    ),
    "set_thermostat": _p(
        "Set the {room} thermostat to {target_c} degrees in {hvac_mode} mode.",
        "Put the {room} on {hvac_mode} at {target_c} degrees Celsius.",
        "I want the {room} at {target_c} C, mode {hvac_mode}.",
    ),
    "set_light": _p(
        "Set the {room} lights to {brightness_pct}% with {color} colour.",
        "Dim the {room} lights to {brightness_pct} percent, {color} light.",
        "Make the {room} light {color} at {brightness_pct} percent brightness.",
    ),
}
"""Tool → its three phrasings (marked text, see :mod:`toolprism.domains._grammar`)."""


def _distinct_texts(args: Args) -> bool:
    texts = [str(v).lower().replace("_", " ") for v in args.values()]
    return len(set(texts)) == len(texts)


def anchor_arguments(tool: str, count: int = ANCHORS_PER_TOOL) -> list[Args]:
    """The stored arguments of ``tool``'s ``count`` anchors: distinct draws from
    ``random.Random(f"trb/anchors/{tool}")`` whose stated values all differ in text.

    Raises:
        ValueError: fewer than ``count`` distinct draws in 50 x ``count`` tries (a generator bug).
    """
    rng = random.Random(f"trb/anchors/{tool}")
    out: list[Args] = []
    for _ in range(50 * count):
        args = GENERATORS[tool](rng)
        if args not in out and _distinct_texts(args):
            out.append(args)
        if len(out) == count:
            return out
    raise ValueError(f"{tool}: only {len(out)} distinct anchors")


def phrase(tool: str, index: int, args: Args) -> str:
    """Anchor ``index`` of ``tool`` as marked text (phrasing ``index % 3``)."""
    phrasings = PHRASINGS[tool]
    return phrasings[index % len(phrasings)](args)


def _check(generators: dict[str, Any], phrasings: dict[str, Any]) -> None:
    if set(generators) != set(phrasings):
        raise ValueError("every tool needs a generator and phrasings")


_check(GENERATORS, PHRASINGS)
