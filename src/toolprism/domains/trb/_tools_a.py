"""ToolRobustBench tools, groups 1-4: routing, currency and finance, weather, time and calendar.

Each tool is a plain function ``tool(state, **arguments) -> dict`` marked with
:func:`~toolprism.domains.operation`; its JSON schema comes from the signature, its description
from the docstring (hand-written). Every return carries an identifier (``*_id``), an enumerated
status field and at least one whole number, so every tool-output subtype has a field to act on.
Neighbouring tools that invite confusion sit in the same group (route vs travel time, conversion
vs exchange rate, loan payment vs compound interest, current weather vs forecast, time-zone
conversion vs local time).
"""

from __future__ import annotations

import calendar
import datetime
from typing import Annotated, Literal

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains.trb._fixtures import (
    CITY_ZONE,
    EUR_PER,
    ROUTE_FACTOR,
    SPEED_KMH,
    ZONE_OFFSET_H,
    City,
    Currency,
    Mode,
    TrbState,
    Zone,
    choose,
    confirm,
    fixed,
    great_circle_km,
    ident,
    refuse_if,
)

Origin = Annotated[City, Field(description="The city the trip starts from.")]
Destination = Annotated[City, Field(description="The city the trip ends in (not the origin).")]
TravelMode = Annotated[Mode, Field(description="How the traveller moves: driving, cycling, walking or transit.")]
Principal = Annotated[int, Field(ge=1000, le=500000, description="The amount borrowed or invested, in euros.")]
RatePct = Annotated[int, Field(ge=1, le=20, description="The yearly interest rate, in whole percent.")]
Years = Annotated[int, Field(ge=1, le=30, description="The term, in whole years.")]
Month = Annotated[int, Field(ge=1, le=12, description="The month of 2026 (1-12).")]
Day = Annotated[int, Field(ge=1, le=28, description="The day of the month (1-28).")]
Hour = Annotated[int, Field(ge=0, le=23, description="The hour of the day, 0-23.")]


def _route_km(origin: str, destination: str, mode: str) -> int:
    refuse_if(origin == destination, "origin and destination are the same city")
    return round(great_circle_km(origin, destination) * ROUTE_FACTOR[mode])


# --- group 1: routing --------------------------------------------------------------------------


@operation(kind="read", group="routing")
def compute_route(state: TrbState, origin: Origin, destination: Destination, mode: TravelMode) -> dict:
    """Compute the route between two cities for a travel mode: its length in kilometres, the
    number of legs and whether it is open. Does not estimate how long the trip takes."""
    km = _route_km(origin, destination, mode)
    return {
        "route_id": ident("RT", origin, destination, mode),
        "route_status": choose(("available", "available", "detour", "restricted"), "route", origin, destination),
        "distance_km": km,
        "legs": 1 + km // 400,
    }


@operation(kind="read", group="routing")
def estimate_travel_time(state: TrbState, origin: Origin, destination: Destination, mode: TravelMode) -> dict:
    """Estimate how long a trip between two cities takes for a travel mode, in minutes, with the
    current traffic level. Does not return the route or its length."""
    km = _route_km(origin, destination, mode)
    traffic = choose(("light", "moderate", "heavy"), "traffic", origin, destination, mode)
    delay = {"light": 0, "moderate": 15, "heavy": 40}[traffic]
    return {
        "estimate_id": ident("ET", origin, destination, mode),
        "traffic_level": traffic,
        "duration_min": round(km / SPEED_KMH[mode] * 60) + delay,
    }


@operation(kind="read", group="routing")
def find_nearest_station(
    state: TrbState,
    city: Annotated[City, Field(description="The city to search in (from its centre).")],
    station_type: Annotated[
        Literal["train", "bus", "metro", "ferry"], Field(description="The kind of station wanted.")
    ],
) -> dict:
    """Find the station of a given kind nearest to a city's centre: its name, whether it is open
    and the walk to it in minutes."""
    refuse_if(station_type == "ferry" and city in ("madrid", "prague", "vienna", "zurich"), f"{city} has no ferry")
    name = f"{city.title()} {choose(('Central', 'North', 'Old Town', 'Harbour'), station_type, city)}"
    return {
        "station_id": ident("ST", city, station_type),
        "station_status": choose(("open", "open", "limited", "closed"), "station", city, station_type),
        "station_name": name,
        "walk_min": fixed("walk", city, station_type, low=2, high=25),
    }


# --- group 2: currency and finance -------------------------------------------------------------


FromCurrency = Annotated[Currency, Field(description="The currency the amount is in (ISO code).")]
ToCurrency = Annotated[Currency, Field(description="The currency wanted (ISO code).")]


def _quote(a: str, b: str) -> str:
    return "firm" if "EUR" in (a, b) or "USD" in (a, b) else "indicative"


@operation(kind="read", group="finance")
def convert_currency(
    state: TrbState,
    amount: Annotated[int, Field(ge=1, le=1000000, description="The amount of money to convert, whole units.")],
    from_currency: FromCurrency,
    to_currency: ToCurrency,
) -> dict:
    """Convert an amount of money from one currency to another at today's fixed rate; returns the
    converted amount. Use it when the user has an amount to convert."""
    refuse_if(from_currency == to_currency, "the two currencies are the same")
    return {
        "conversion_id": ident("CV", amount, from_currency, to_currency),
        "quote_status": _quote(from_currency, to_currency),
        "amount": amount,
        "converted_amount": round(amount * EUR_PER[from_currency] / EUR_PER[to_currency], 2),
        "fee_bp": fixed("fee", from_currency, to_currency, low=5, high=60),
    }


@operation(kind="read", group="finance")
def get_exchange_rate(
    state: TrbState,
    base_currency: Annotated[Currency, Field(description="The currency one unit of which is priced (ISO code).")],
    quote_currency: Annotated[Currency, Field(description="The currency the price is given in (ISO code).")],
) -> dict:
    """Look up today's exchange rate: how many units of the quote currency one unit of the base
    currency buys. Converts no amount."""
    refuse_if(base_currency == quote_currency, "the two currencies are the same")
    return {
        "rate_id": ident("FX", base_currency, quote_currency),
        "quote_status": _quote(base_currency, quote_currency),
        "rate": round(EUR_PER[base_currency] / EUR_PER[quote_currency], 4),
        "spread_bp": fixed("spread", base_currency, quote_currency, low=2, high=40),
    }


@operation(kind="read", group="finance")
def calculate_loan_payment(state: TrbState, principal: Principal, annual_rate_pct: RatePct, years: Years) -> dict:
    """Calculate the fixed monthly payment that repays a loan over its term (monthly
    amortisation), and the total interest paid."""
    r, n = annual_rate_pct / 1200, years * 12
    payment = principal * r / (1 - (1 + r) ** -n)
    return {
        "plan_id": ident("LN", principal, annual_rate_pct, years),
        "plan_status": "eligible" if principal <= 300000 else "review",
        "monthly_payment": round(payment, 2),
        "total_interest": round(payment * n - principal),
    }


@operation(kind="read", group="finance")
def compute_compound_interest(state: TrbState, principal: Principal, annual_rate_pct: RatePct, years: Years) -> dict:
    """Project what an investment grows to with interest compounded once a year: the final balance
    and the interest earned. Not for loans."""
    balance = principal * (1 + annual_rate_pct / 100) ** years
    return {
        "projection_id": ident("CI", principal, annual_rate_pct, years),
        "plan_status": "eligible" if annual_rate_pct <= 12 else "review",
        "final_balance": round(balance, 2),
        "interest_earned": round(balance - principal),
    }


# --- group 3: weather --------------------------------------------------------------------------


_CONDITIONS = ("sunny", "cloudy", "rain", "snow", "fog", "windy")
Units = Annotated[
    Literal["metric", "imperial"], Field(description="metric: degrees Celsius; imperial: degrees Fahrenheit.")
]


def _degrees(celsius: int, units: str) -> int:
    return celsius if units == "metric" else round(celsius * 9 / 5 + 32)


@operation(kind="read", group="weather")
def get_current_weather(
    state: TrbState, city: Annotated[City, Field(description="The city to observe.")], units: Units
) -> dict:
    """Get the weather in a city right now: the condition, the temperature and the humidity."""
    return {
        "observation_id": ident("WX", city),
        "condition": choose(_CONDITIONS, "now", city),
        "temperature": _degrees(fixed("temp", city, low=-2, high=31), units),
        "humidity_pct": fixed("humidity", city, low=25, high=95),
    }


@operation(kind="read", group="weather")
def get_weather_forecast(
    state: TrbState,
    city: Annotated[City, Field(description="The city to forecast.")],
    days_ahead: Annotated[int, Field(ge=1, le=7, description="How many days from today (1 = tomorrow, up to 7).")],
    units: Units,
) -> dict:
    """Get the forecast for a city some days ahead: the expected condition, the high and low
    temperatures and the chance of rain. Not the weather right now."""
    low = fixed("low", city, days_ahead, low=-5, high=20)
    return {
        "forecast_id": ident("FC", city, days_ahead),
        "condition": choose(_CONDITIONS, "forecast", city, days_ahead),
        "high": _degrees(low + fixed("span", city, days_ahead, low=3, high=12), units),
        "low": _degrees(low, units),
        "rain_chance_pct": fixed("rain", city, days_ahead, low=0, high=100),
    }


@operation(kind="read", group="weather")
def get_air_quality(
    state: TrbState,
    city: Annotated[City, Field(description="The city to measure.")],
    pollutant: Annotated[
        Literal["pm25", "pm10", "ozone", "no2"], Field(description="The pollutant the index is computed for.")
    ],
) -> dict:
    """Get a city's air-quality index (AQI) for one pollutant, with its band."""
    aqi = fixed("aqi", city, pollutant, low=8, high=180)
    band = "good" if aqi <= 50 else "moderate" if aqi <= 100 else "unhealthy" if aqi <= 150 else "hazardous"
    return {"reading_id": ident("AQ", city, pollutant), "aqi_band": band, "aqi": aqi}


# --- group 4: time and calendar ----------------------------------------------------------------


@operation(kind="read", group="time")
def convert_timezone(
    state: TrbState,
    hour: Annotated[int, Field(ge=0, le=23, description="The hour to convert, 0-23, in the source zone.")],
    from_zone: Annotated[Zone, Field(description="The time zone the hour is given in.")],
    to_zone: Annotated[Zone, Field(description="The time zone to express it in.")],
) -> dict:
    """Convert an hour of the day from one time zone to another (standard time); says whether the
    result falls on the previous or next day."""
    refuse_if(from_zone == to_zone, "the two time zones are the same")
    total = hour - ZONE_OFFSET_H[from_zone] + ZONE_OFFSET_H[to_zone]
    return {
        "tz_conversion_id": ident("TZ", hour, from_zone, to_zone),
        "clock_status": "synced",
        "converted_hour": total % 24,
        "day_shift": total // 24,
    }


@operation(kind="read", group="time")
def get_local_time(
    state: TrbState,
    city: Annotated[City, Field(description="The city whose clock is read.")],
    hour_format: Annotated[Literal["12h", "24h"], Field(description="12h (with am/pm) or 24h clock.")],
) -> dict:
    """Read the current local time in a city (the reference instant is 2026-05-11 12:00 UTC) and
    its offset from UTC. Converts no other time."""
    offset = ZONE_OFFSET_H[CITY_ZONE[city]]
    minute = fixed("minute", city, low=0, high=59)
    hour = (12 + offset) % 24
    shown = (
        f"{hour:02d}:{minute:02d}"
        if hour_format == "24h"
        else f"{(hour - 1) % 12 + 1}:{minute:02d} " + ("am" if hour < 12 else "pm")
    )
    return {
        "lookup_id": ident("LT", city),
        "clock_status": choose(("synced", "synced", "estimated"), "clock", city),
        "local_time": shown,
        "utc_offset_h": offset,
    }


@operation(kind="read", group="time")
def count_business_days(
    state: TrbState,
    month: Month,
    start_day: Annotated[int, Field(ge=1, le=28, description="The first day counted (1-28).")],
    end_day: Annotated[int, Field(ge=1, le=28, description="The last day counted (1-28, not before the first).")],
) -> dict:
    """Count the business days (Monday to Friday) between two days of a month of 2026, both
    included."""
    refuse_if(end_day < start_day, "the last day is before the first day")
    days = [datetime.date(2026, month, d) for d in range(start_day, end_day + 1)]
    return {
        "count_id": ident("BD", month, start_day, end_day),
        "calendar_status": "holiday_adjusted" if month in (1, 5, 12) else "complete",
        "business_days": sum(d.weekday() < 5 for d in days),
        "calendar_days": len(days),
    }


@operation(kind="write", group="time")
def add_calendar_event(
    state: TrbState,
    title: Annotated[
        Literal["dentist", "team_meeting", "gym", "lunch", "haircut", "book_club"],
        Field(description="What the event is."),
    ],
    month: Month,
    day: Day,
    hour: Hour,
) -> dict:
    """Add an event to the user's calendar on a day of 2026 at an hour; returns the new event's
    identifier and the weekday it falls on."""
    event_id = confirm(state, "add_calendar_event", "EV", title=title, month=month, day=day, hour=hour)
    return {
        "event_id": event_id,
        "event_status": "confirmed" if 8 <= hour <= 20 else "tentative",
        "weekday": calendar.day_name[datetime.date(2026, month, day).weekday()].lower(),
        "duration_min": 60,
    }


TOOLS_A = (
    compute_route,
    estimate_travel_time,
    find_nearest_station,
    convert_currency,
    get_exchange_rate,
    calculate_loan_payment,
    compute_compound_interest,
    get_current_weather,
    get_weather_forecast,
    get_air_quality,
    convert_timezone,
    get_local_time,
    count_business_days,
    add_calendar_event,
)
