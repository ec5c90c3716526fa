"""ToolRobustBench tools, groups 9-12: dining, health, everyday calculations and translation, home.

See :mod:`._tools_a` for the conventions. Neighbours here: restaurant search vs rating (and
reservation), calories burned vs nutrition facts, percentage vs tip, thermostat reading vs setting.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains.trb._fixtures import (
    RESTAURANT_CUISINE,
    City,
    Cuisine,
    Restaurant,
    Room,
    TrbState,
    choose,
    confirm,
    fixed,
    ident,
)

# --- group 9: dining ---------------------------------------------------------------------------

RestaurantArg = Annotated[Restaurant, Field(description="The restaurant.")]


@operation(kind="read", group="dining")
def search_restaurants(
    state: TrbState,
    city: Annotated[City, Field(description="The city to search in.")],
    cuisine: Annotated[Cuisine, Field(description="The kind of food wanted.")],
) -> dict:
    """Search a city's restaurants serving a cuisine: how many match and the best-rated one."""
    matches = fixed("matches", city, cuisine, low=1, high=30)
    top = next(name for name, kind in RESTAURANT_CUISINE.items() if kind == cuisine)
    return {
        "result_id": ident("RS", city, cuisine),
        "listing_status": choose(("open", "open", "closed"), "open", city, cuisine),
        "matches": matches,
        "top_restaurant": top,
    }


@operation(kind="read", group="dining")
def get_restaurant_rating(
    state: TrbState,
    restaurant: RestaurantArg,
    source: Annotated[
        Literal["critics", "diners", "guides"], Field(description="Whose ratings: food critics, diners or guidebooks.")
    ],
) -> dict:
    """Get a restaurant's average rating (out of 5) from one source, and how many reviews it is
    based on."""
    return {
        "rating_id": ident("RR", restaurant, source),
        "listing_status": choose(("open", "open", "closed"), "listing", restaurant),
        "rating": fixed("rating", restaurant, source, low=28, high=50) / 10,
        "reviews": fixed("reviews", restaurant, source, low=12, high=2400),
    }


@operation(kind="write", group="dining")
def reserve_table(
    state: TrbState,
    restaurant: RestaurantArg,
    party_size: Annotated[int, Field(ge=1, le=12, description="How many people (1-12).")],
    hour: Annotated[int, Field(ge=11, le=22, description="The hour of the reservation today, 11-22.")],
) -> dict:
    """Reserve a table at a restaurant for a party at an hour today; returns the reservation's
    identifier and table number."""
    reservation_id = confirm(state, "reserve_table", "TB", restaurant=restaurant, party_size=party_size, hour=hour)
    return {
        "reservation_id": reservation_id,
        "reservation_status": "waitlisted" if party_size > 8 else "confirmed",
        "table_number": fixed("table", restaurant, party_size, hour, low=1, high=40),
        "party_size": party_size,
    }


# --- group 10: health --------------------------------------------------------------------------


@operation(kind="read", group="health")
def calculate_bmi(
    state: TrbState,
    weight_kg: Annotated[int, Field(ge=30, le=200, description="Body weight in kilograms.")],
    height_cm: Annotated[int, Field(ge=120, le=220, description="Height in centimetres.")],
) -> dict:
    """Calculate the body-mass index from weight and height, with its category."""
    bmi = round(weight_kg / (height_cm / 100) ** 2, 1)
    category = "underweight" if bmi < 18.5 else "normal" if bmi < 25 else "overweight" if bmi < 30 else "obese"
    return {
        "assessment_id": ident("BM", weight_kg, height_cm),
        "bmi_category": category,
        "bmi": bmi,
        "healthy_max_kg": round(24.9 * (height_cm / 100) ** 2),
    }


_MET = {"running": 9.8, "cycling": 7.5, "swimming": 8.0, "walking": 3.5, "rowing": 7.0}


@operation(kind="read", group="health")
def calculate_calories_burned(
    state: TrbState,
    activity: Annotated[
        Literal["running", "cycling", "swimming", "walking", "rowing"], Field(description="The exercise.")
    ],
    minutes: Annotated[int, Field(ge=5, le=300, description="How long, in minutes.")],
    weight_kg: Annotated[int, Field(ge=30, le=200, description="Body weight in kilograms.")],
) -> dict:
    """Estimate the kilocalories an exercise burns for its duration and the person's weight. Not
    the calories in food."""
    met = _MET[activity]
    return {
        "estimate_id": ident("KC", activity, minutes, weight_kg),
        "intensity": "vigorous" if met >= 8 else "moderate" if met >= 5 else "low",
        "calories": round(met * weight_kg * minutes / 60),
    }


_PER_100G = {  # kcal, protein g
    "apple": (52, 0.3),
    "banana": (89, 1.1),
    "rice": (130, 2.7),
    "oats": (389, 16.9),
    "chicken": (165, 31.0),
    "salmon": (208, 20.0),
    "lentils": (116, 9.0),
    "almonds": (579, 21.2),
}


@operation(kind="read", group="health")
def get_nutrition_facts(
    state: TrbState,
    food: Annotated[
        Literal["apple", "banana", "rice", "oats", "chicken", "salmon", "lentils", "almonds"],
        Field(description="The food."),
    ],
    grams: Annotated[int, Field(ge=1, le=2000, description="The portion, in grams.")],
) -> dict:
    """Get the energy (kilocalories) and protein in a portion of a food, with its nutrition grade."""
    kcal, protein = _PER_100G[food]
    return {
        "facts_id": ident("NF", food, grams),
        "nutrition_grade": "A" if protein / kcal > 0.1 else "B" if kcal < 150 else "C" if kcal < 400 else "D",
        "calories": round(kcal * grams / 100),
        "protein_g": round(protein * grams / 100, 1),
    }


# --- group 11: everyday calculations and translation -------------------------------------------


@operation(kind="read", group="utility")
def calculate_percentage(
    state: TrbState,
    part: Annotated[int, Field(ge=0, le=1000000, description="The part.")],
    whole: Annotated[int, Field(ge=1, le=1000000, description="The whole the part is a share of.")],
) -> dict:
    """Calculate what percentage one number is of another."""
    share = part / whole * 100
    return {
        "calculation_id": ident("PC", part, whole),
        "precision": "exact" if share == round(share, 2) else "rounded",
        "percentage": round(share, 2),
        "part": part,
    }


@operation(kind="read", group="utility")
def calculate_tip(
    state: TrbState,
    bill_eur: Annotated[int, Field(ge=1, le=5000, description="The bill, in whole euros.")],
    tip_pct: Annotated[int, Field(ge=5, le=30, description="The tip, in whole percent of the bill.")],
    people: Annotated[int, Field(ge=1, le=12, description="How many people split the bill and tip.")],
) -> dict:
    """Calculate the tip on a restaurant bill and what each person pays when the bill and tip are
    split evenly."""
    tip = bill_eur * tip_pct / 100
    each = (bill_eur + tip) / people
    return {
        "calculation_id": ident("TP", bill_eur, tip_pct, people),
        "precision": "exact" if each == round(each, 2) else "rounded",
        "tip_eur": round(tip, 2),
        "per_person_eur": round(each, 2),
        "people": people,
    }


Phrase = Literal["good_morning", "thank_you", "where_is_the_station", "how_much_is_it", "the_bill_please"]
Language = Literal["french", "german", "spanish", "italian", "portuguese"]
TRANSLATIONS: dict[str, tuple[str, str, str, str, str]] = {
    "good_morning": ("bonjour", "guten Morgen", "buenos días", "buongiorno", "bom dia"),
    "thank_you": ("merci", "danke", "gracias", "grazie", "obrigado"),
    "where_is_the_station": (
        "où est la gare ?",
        "wo ist der Bahnhof?",
        "¿dónde está la estación?",
        "dov'è la stazione?",
        "onde fica a estação?",
    ),
    "how_much_is_it": (
        "combien ça coûte ?",
        "wie viel kostet das?",
        "¿cuánto cuesta?",
        "quanto costa?",
        "quanto custa?",
    ),
    "the_bill_please": (
        "l'addition, s'il vous plaît",
        "die Rechnung, bitte",
        "la cuenta, por favor",
        "il conto, per favore",
        "a conta, por favor",
    ),
}
LANGUAGES: tuple[str, ...] = ("french", "german", "spanish", "italian", "portuguese")


@operation(kind="read", group="utility")
def translate_phrase(
    state: TrbState,
    phrase: Annotated[Phrase, Field(description="The English phrase to translate (one of a fixed phrasebook).")],
    target_language: Annotated[Language, Field(description="The language to translate into.")],
) -> dict:
    """Translate a phrasebook phrase from English into another language."""
    text = TRANSLATIONS[phrase][LANGUAGES.index(target_language)]
    return {
        "translation_id": ident("TR", phrase, target_language),
        "confidence": "high" if len(text) < 20 else "medium",
        "translation": text,
        "characters": len(text),
    }


# --- group 12: home ----------------------------------------------------------------------------

RoomArg = Annotated[Room, Field(description="The room.")]
HvacMode = Literal["heat", "cool", "auto", "eco"]


@operation(kind="read", group="home")
def get_thermostat_reading(
    state: TrbState,
    room: RoomArg,
    sensor: Annotated[
        Literal["temperature", "humidity", "co2"], Field(description="Which sensor of the room's thermostat to read.")
    ],
) -> dict:
    """Read one sensor of a room's thermostat (temperature in degrees Celsius, humidity in
    percent, CO2 in ppm) and its current mode. Changes nothing."""
    low, high = {"temperature": (16, 26), "humidity": (30, 70), "co2": (400, 1400)}[sensor]
    return {
        "reading_id": ident("TH", room, sensor),
        "hvac_mode": choose(("heat", "cool", "auto", "eco"), "mode", room),
        "value": fixed("sensor", room, sensor, low=low, high=high),
        "sensor": sensor,
    }


@operation(kind="write", group="home")
def set_thermostat(
    state: TrbState,
    room: RoomArg,
    target_c: Annotated[int, Field(ge=16, le=28, description="The target temperature, degrees Celsius (16-28).")],
    hvac_mode: Annotated[HvacMode, Field(description="heat, cool, auto or eco.")],
) -> dict:
    """Set a room's thermostat to a target temperature and mode; returns when it gets there."""
    setting_id = confirm(state, "set_thermostat", "TS", room=room, target_c=target_c, hvac_mode=hvac_mode)
    current = fixed("sensor", room, "temperature", low=16, high=26)
    return {
        "setting_id": setting_id,
        "hvac_mode": hvac_mode,
        "target_c": target_c,
        "eta_min": abs(target_c - current) * 6,
    }


@operation(kind="write", group="home")
def set_light(
    state: TrbState,
    room: RoomArg,
    brightness_pct: Annotated[int, Field(ge=0, le=100, description="Brightness in percent (0 switches it off).")],
    color: Annotated[Literal["warm", "neutral", "cool"], Field(description="The light's colour temperature.")],
) -> dict:
    """Set a room's lights to a brightness and colour temperature."""
    light_id = confirm(state, "set_light", "LG", room=room, brightness_pct=brightness_pct, color=color)
    return {
        "light_id": light_id,
        "power": "off" if brightness_pct == 0 else "on",
        "brightness_pct": brightness_pct,
        "watts": round(brightness_pct * 0.12, 1) if brightness_pct else 0,
    }


TOOLS_C = (
    search_restaurants,
    get_restaurant_rating,
    reserve_table,
    calculate_bmi,
    calculate_calories_burned,
    get_nutrition_facts,
    calculate_percentage,
    calculate_tip,
    translate_phrase,
    get_thermostat_reading,
    set_thermostat,
    set_light,
)
