"""ToolRobustBench tools, groups 5-8: units, shopping, travel booking, messaging.

See :mod:`._tools_a` for the conventions. Neighbours here: unit vs temperature conversion, stock
vs price lookup (and ordering), flight search vs flight status, hotel availability vs booking,
e-mail vs text message.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains.trb._fixtures import (
    BASE_PRICE_EUR,
    STORE_MARKUP_PCT,
    City,
    Contact,
    Product,
    Store,
    TrbState,
    choose,
    confirm,
    fixed,
    great_circle_km,
    ident,
    refuse_if,
)

# --- group 5: units ----------------------------------------------------------------------------

LengthUnit = Literal["meters", "feet", "kilometers", "miles", "inches", "centimeters"]
METERS_PER: dict[str, float] = {
    "meters": 1.0,
    "feet": 0.3048,
    "kilometers": 1000.0,
    "miles": 1609.344,
    "inches": 0.0254,
    "centimeters": 0.01,
}


@operation(kind="read", group="units")
def convert_units(
    state: TrbState,
    value: Annotated[int, Field(ge=1, le=100000, description="The length to convert, a whole number.")],
    from_unit: Annotated[LengthUnit, Field(description="The unit of length the value is in.")],
    to_unit: Annotated[LengthUnit, Field(description="The unit of length wanted.")],
) -> dict:
    """Convert a length between units (meters, feet, kilometers, miles, inches, centimeters).
    Lengths only: temperatures have their own tool."""
    refuse_if(from_unit == to_unit, "the two units are the same")
    result = value * METERS_PER[from_unit] / METERS_PER[to_unit]
    return {
        "unit_conversion_id": ident("UC", value, from_unit, to_unit),
        "precision": "exact" if result == round(result, 3) else "rounded",
        "input_value": value,
        "result": round(result, 3),
    }


Scale = Literal["celsius", "fahrenheit", "kelvin"]


@operation(kind="read", group="units")
def convert_temperature(
    state: TrbState,
    value: Annotated[int, Field(ge=-100, le=500, description="The temperature to convert, whole degrees.")],
    from_scale: Annotated[Scale, Field(description="The scale the value is in.")],
    to_scale: Annotated[Scale, Field(description="The scale wanted.")],
) -> dict:
    """Convert a temperature between the Celsius, Fahrenheit and Kelvin scales."""
    refuse_if(from_scale == to_scale, "the two scales are the same")
    celsius = {"celsius": value, "fahrenheit": (value - 32) * 5 / 9, "kelvin": value - 273.15}[from_scale]
    result = {"celsius": celsius, "fahrenheit": celsius * 9 / 5 + 32, "kelvin": celsius + 273.15}[to_scale]
    return {
        "temperature_conversion_id": ident("TC", value, from_scale, to_scale),
        "precision": "exact" if result == round(result, 2) else "rounded",
        "input_value": value,
        "result": round(result, 2),
    }


@operation(kind="read", group="units")
def calculate_area(
    state: TrbState,
    shape: Annotated[
        Literal["rectangle", "triangle", "ellipse"],
        Field(description="rectangle: width x height; triangle: base width and height; ellipse: the two axes."),
    ],
    width_m: Annotated[int, Field(ge=1, le=1000, description="The width (or base, or first axis), in metres.")],
    height_m: Annotated[int, Field(ge=1, le=1000, description="The height (or second axis), in metres.")],
) -> dict:
    """Calculate the area of a rectangle, triangle or ellipse from its width and height, in
    square metres."""
    factor = {"rectangle": 1.0, "triangle": 0.5, "ellipse": 3.14159265 / 4}[shape]
    area = width_m * height_m * factor
    return {
        "area_id": ident("AR", shape, width_m, height_m),
        "precision": "exact" if area == round(area, 2) else "rounded",
        "area_m2": round(area, 2),
        "perimeter_hint_m": 2 * (width_m + height_m),
    }


# --- group 6: shopping -------------------------------------------------------------------------

ProductArg = Annotated[Product, Field(description="The product.")]
StoreArg = Annotated[Store, Field(description="The store (a branch, or online).")]


def _price_eur(product: str, store: str) -> int:
    return round(BASE_PRICE_EUR[product] * (100 + STORE_MARKUP_PCT[store]) / 100)


@operation(kind="read", group="shopping")
def check_product_stock(state: TrbState, product: ProductArg, store: StoreArg) -> dict:
    """Check how many units of a product a store has in stock right now. Says nothing about price."""
    units = fixed("stock", product, store, low=0, high=40)
    status = "out_of_stock" if units == 0 else "low_stock" if units < 5 else "in_stock"
    return {"stock_id": ident("SK", product, store), "stock_status": status, "units_available": units}


@operation(kind="read", group="shopping")
def get_product_price(state: TrbState, product: ProductArg, store: StoreArg) -> dict:
    """Get a product's current price at a store, in euros, and whether it is discounted."""
    return {
        "price_id": ident("PR", product, store),
        "price_status": "discounted" if STORE_MARKUP_PCT[store] < 0 else "regular",
        "price_eur": _price_eur(product, store),
        "discount_pct": max(0, -STORE_MARKUP_PCT[store]),
    }


@operation(kind="write", group="shopping")
def place_order(
    state: TrbState,
    product: ProductArg,
    quantity: Annotated[int, Field(ge=1, le=20, description="How many units to order (1-20).")],
    store: StoreArg,
) -> dict:
    """Order a quantity of a product from a store; returns the order's identifier and total."""
    order_id = confirm(state, "place_order", "OR", product=product, quantity=quantity, store=store)
    available = fixed("stock", product, store, low=0, high=40)
    return {
        "order_id": order_id,
        "order_status": "placed" if quantity <= available else "backordered",
        "total_eur": quantity * _price_eur(product, store),
        "quantity": quantity,
    }


_SHIPMENT = re.compile(r"^SH\d{4}$")


@operation(kind="read", group="shopping")
def track_shipment(
    state: TrbState,
    shipment_id: Annotated[str, Field(description="The shipment's tracking number, 'SH' and four digits.")],
    carrier: Annotated[Literal["dhl", "ups", "fedex", "dpd"], Field(description="The carrier shipping it.")],
) -> dict:
    """Track a shipment: where it is in its journey and how many days until delivery."""
    refuse_if(not _SHIPMENT.match(shipment_id), f"no shipment {shipment_id} with {carrier}")
    status = choose(("in_transit", "out_for_delivery", "delivered", "delayed"), shipment_id, carrier)
    return {
        "tracking_id": ident("TK", shipment_id, carrier),
        "shipment_status": status,
        "days_to_delivery": 0 if status == "delivered" else fixed("days", shipment_id, low=1, high=6),
        "hub": choose(("Leipzig", "Cologne", "Liege", "Vienna"), "hub", shipment_id),
    }


# --- group 7: travel booking -------------------------------------------------------------------

_FLIGHT = re.compile(r"^TR\d{3,4}$")
TravelDay = Annotated[int, Field(ge=1, le=28, description="The day of June 2026 (1-28).")]


@operation(kind="read", group="travel")
def search_flights(
    state: TrbState,
    origin: Annotated[City, Field(description="The departure city.")],
    destination: Annotated[City, Field(description="The arrival city.")],
    day: TravelDay,
) -> dict:
    """Search flights between two cities on a day: how many there are, the cheapest fare and the
    cheapest flight's number. Does not tell whether a given flight is on time."""
    refuse_if(origin == destination, "origin and destination are the same city")
    base = 40 + round(great_circle_km(origin, destination) * 0.09)
    return {
        "search_id": ident("FS", origin, destination, day),
        "fare_status": choose(("available", "available", "waitlist", "sold_out"), "fare", origin, destination, day),
        "flights_found": fixed("flights", origin, destination, day, low=1, high=9),
        "cheapest_fare_eur": base + fixed("fare", origin, destination, day, low=0, high=120),
        "flight_number": f"TR{fixed('number', origin, destination, day, low=100, high=999)}",
    }


@operation(kind="read", group="travel")
def get_flight_status(
    state: TrbState,
    flight_number: Annotated[str, Field(description="The flight number, 'TR' and three or four digits.")],
    day: TravelDay,
) -> dict:
    """Get the status of one flight on a day: on time, delayed, boarding or cancelled, the delay
    in minutes and the gate."""
    refuse_if(not _FLIGHT.match(flight_number), f"no flight {flight_number} on June {day}")
    status = choose(("on_time", "on_time", "delayed", "boarding", "cancelled"), flight_number, day)
    return {
        "status_id": ident("FL", flight_number, day),
        "flight_status": status,
        "delay_min": fixed("delay", flight_number, day, low=10, high=180) if status == "delayed" else 0,
        "gate": f"{choose(('A', 'B', 'C'), 'gate', flight_number)}{fixed('gate', flight_number, day, low=1, high=40)}",
    }


HotelCity = Annotated[City, Field(description="The city of the stay.")]
Nights = Annotated[int, Field(ge=1, le=14, description="How many nights (1-14).")]
RoomType = Annotated[Literal["single", "double", "suite", "family"], Field(description="The kind of room.")]
_NIGHTLY_EUR = {"single": 80, "double": 120, "suite": 260, "family": 170}


@operation(kind="read", group="travel")
def check_hotel_availability(state: TrbState, city: HotelCity, nights: Nights, room_type: RoomType) -> dict:
    """Check whether hotel rooms of a kind are free in a city for a number of nights, how many are
    left and the nightly rate. Books nothing."""
    left = fixed("rooms", city, nights, room_type, low=0, high=12)
    return {
        "availability_id": ident("HA", city, nights, room_type),
        "availability": "full" if left == 0 else "limited" if left < 3 else "available",
        "rooms_left": left,
        "nightly_rate_eur": _NIGHTLY_EUR[room_type] + fixed("rate", city, low=0, high=60),
    }


@operation(kind="write", group="travel")
def book_hotel_room(state: TrbState, city: HotelCity, nights: Nights, room_type: RoomType) -> dict:
    """Book a hotel room of a kind in a city for a number of nights; returns the booking's
    identifier and total price."""
    booking_id = confirm(state, "book_hotel_room", "HB", city=city, nights=nights, room_type=room_type)
    nightly = _NIGHTLY_EUR[room_type] + fixed("rate", city, low=0, high=60)
    return {
        "booking_id": booking_id,
        "booking_status": "confirmed" if fixed("rooms", city, nights, room_type, low=0, high=12) else "pending",
        "total_eur": nightly * nights,
        "nights": nights,
    }


# --- group 8: messaging ------------------------------------------------------------------------

Recipient = Annotated[Contact, Field(description="The contact the message goes to.")]


@operation(kind="write", group="messaging")
def send_email(
    state: TrbState,
    recipient: Recipient,
    topic: Annotated[
        Literal["invoice", "meeting_notes", "travel_plans", "birthday_party", "project_update"],
        Field(description="What the e-mail is about (its subject line is written from it)."),
    ],
    priority: Annotated[Literal["low", "normal", "high"], Field(description="The e-mail's priority flag.")],
) -> dict:
    """Send an e-mail on a topic to a contact, with a priority; returns the message identifier."""
    message_id = confirm(state, "send_email", "EM", recipient=recipient, topic=topic, priority=priority)
    return {
        "message_id": message_id,
        "delivery_status": "queued" if priority == "low" else "sent",
        "size_bytes": fixed("size", recipient, topic, low=900, high=9000),
    }


@operation(kind="write", group="messaging")
def send_sms(
    state: TrbState,
    recipient: Recipient,
    template: Annotated[
        Literal["running_late", "call_me", "on_my_way", "meeting_moved"],
        Field(description="The canned text to send."),
    ],
) -> dict:
    """Send a short text message (SMS) from a canned template to a contact's phone."""
    message_id = confirm(state, "send_sms", "SM", recipient=recipient, template=template)
    return {
        "message_id": message_id,
        "delivery_status": choose(("sent", "sent", "queued"), recipient, template),
        "segments": 1,
    }


@operation(kind="write", group="messaging")
def schedule_reminder(
    state: TrbState,
    task: Annotated[
        Literal["pay_rent", "call_mom", "water_plants", "take_medicine", "renew_passport"],
        Field(description="What to be reminded of."),
    ],
    day: Annotated[int, Field(ge=1, le=28, description="The day of this month (1-28).")],
    hour: Annotated[int, Field(ge=0, le=23, description="The hour of the day, 0-23.")],
) -> dict:
    """Schedule a push reminder for the user on a day at an hour. Adds no calendar event."""
    reminder_id = confirm(state, "schedule_reminder", "RM", task=task, day=day, hour=hour)
    return {
        "reminder_id": reminder_id,
        "reminder_status": "scheduled" if 7 <= hour <= 22 else "snoozed",
        "minutes_before": 10,
    }


TOOLS_B = (
    convert_units,
    convert_temperature,
    calculate_area,
    check_product_stock,
    get_product_price,
    place_order,
    track_shipment,
    search_flights,
    get_flight_status,
    check_hotel_availability,
    book_hotel_room,
    send_email,
    send_sms,
    schedule_reminder,
)
