"""The ToolRobustBench tool environment as data: 40 tools in 12 functional groups, their
confusable neighbours, the field each return answers with, and the seeded 16-tool sample.

Source: ToolRobustBench, section 4 ("40 original deterministic tools across 12 functional groups,
sampling 16 with fixed seed 20260511") and appendix E ("the main single-family experiments sample
16 tools using fixed seed 20260511"). The paper publishes neither the tools nor its sampling code:
the tools are toolprism's own, and the sample is toolprism's reading of the sentence,
``random.Random(20260511).sample(TOOLS, 16)`` over the catalogue in :data:`TOOLS` order, listed
back in catalogue order.
"""

from __future__ import annotations

import random

from toolprism.domains._base import OperationFn
from toolprism.domains.trb._tools_a import TOOLS_A
from toolprism.domains.trb._tools_b import TOOLS_B
from toolprism.domains.trb._tools_c import TOOLS_C

CATALOG: dict[str, OperationFn] = {fn.__name__: fn for fn in (*TOOLS_A, *TOOLS_B, *TOOLS_C)}
"""Tool name → its executor (the operation function), all 40, in catalogue order."""
TOOLS: tuple[str, ...] = tuple(CATALOG)
"""The 40 tool names, in catalogue order (groups in :data:`GROUPS` order)."""
GROUPS: dict[str, tuple[str, ...]] = {}
for _name, _fn in CATALOG.items():
    GROUPS.setdefault(_fn.__toolprism_operation__[1], ())  # type: ignore[attr-defined]
    GROUPS[_fn.__toolprism_operation__[1]] += (_name,)  # type: ignore[attr-defined]
"""Functional group → its tools, in catalogue order (12 groups)."""

NEIGHBOURS: dict[str, tuple[str, ...]] = {
    "compute_route": ("estimate_travel_time", "find_nearest_station", "search_flights"),
    "estimate_travel_time": ("compute_route", "find_nearest_station"),
    "find_nearest_station": ("compute_route", "estimate_travel_time"),
    "convert_currency": ("get_exchange_rate", "calculate_percentage"),
    "get_exchange_rate": ("convert_currency",),
    "calculate_loan_payment": ("compute_compound_interest",),
    "compute_compound_interest": ("calculate_loan_payment",),
    "get_current_weather": ("get_weather_forecast", "get_air_quality"),
    "get_weather_forecast": ("get_current_weather", "get_air_quality"),
    "get_air_quality": ("get_current_weather", "get_weather_forecast"),
    "convert_timezone": ("get_local_time",),
    "get_local_time": ("convert_timezone",),
    "count_business_days": ("add_calendar_event", "convert_timezone"),
    "add_calendar_event": ("schedule_reminder", "count_business_days"),
    "convert_units": ("convert_temperature", "calculate_area"),
    "convert_temperature": ("convert_units", "get_thermostat_reading"),
    "calculate_area": ("convert_units",),
    "check_product_stock": ("get_product_price", "place_order"),
    "get_product_price": ("check_product_stock", "place_order"),
    "place_order": ("check_product_stock", "get_product_price"),
    "track_shipment": ("place_order", "get_flight_status"),
    "search_flights": ("get_flight_status", "compute_route"),
    "get_flight_status": ("search_flights", "track_shipment"),
    "check_hotel_availability": ("book_hotel_room",),
    "book_hotel_room": ("check_hotel_availability", "reserve_table"),
    "send_email": ("send_sms",),
    "send_sms": ("send_email",),
    "schedule_reminder": ("add_calendar_event",),
    "search_restaurants": ("get_restaurant_rating", "reserve_table"),
    "get_restaurant_rating": ("search_restaurants",),
    "reserve_table": ("book_hotel_room", "search_restaurants"),
    "calculate_bmi": ("calculate_calories_burned",),
    "calculate_calories_burned": ("get_nutrition_facts", "calculate_bmi"),
    "get_nutrition_facts": ("calculate_calories_burned",),
    "calculate_percentage": ("calculate_tip",),
    "calculate_tip": ("calculate_percentage",),
    "translate_phrase": ("send_sms",),
    "get_thermostat_reading": ("set_thermostat", "get_current_weather"),
    "set_thermostat": ("get_thermostat_reading", "set_light"),
    "set_light": ("set_thermostat",),
}
"""Tool → the tools a request for it is most easily confused with, nearest first (the paper's
example: route computation vs travel time, appendix B.1)."""

ANSWERS: dict[str, str] = {
    "compute_route": "distance_km",
    "estimate_travel_time": "duration_min",
    "find_nearest_station": "station_name",
    "convert_currency": "converted_amount",
    "get_exchange_rate": "rate",
    "calculate_loan_payment": "monthly_payment",
    "compute_compound_interest": "final_balance",
    "get_current_weather": "temperature",
    "get_weather_forecast": "condition",
    "get_air_quality": "aqi",
    "convert_timezone": "converted_hour",
    "get_local_time": "local_time",
    "count_business_days": "business_days",
    "add_calendar_event": "event_id",
    "convert_units": "result",
    "convert_temperature": "result",
    "calculate_area": "area_m2",
    "check_product_stock": "units_available",
    "get_product_price": "price_eur",
    "place_order": "order_id",
    "track_shipment": "shipment_status",
    "search_flights": "cheapest_fare_eur",
    "get_flight_status": "flight_status",
    "check_hotel_availability": "rooms_left",
    "book_hotel_room": "booking_id",
    "send_email": "message_id",
    "send_sms": "message_id",
    "schedule_reminder": "reminder_id",
    "search_restaurants": "top_restaurant",
    "get_restaurant_rating": "rating",
    "reserve_table": "reservation_id",
    "calculate_bmi": "bmi",
    "calculate_calories_burned": "calories",
    "get_nutrition_facts": "calories",
    "calculate_percentage": "percentage",
    "calculate_tip": "per_person_eur",
    "translate_phrase": "translation",
    "get_thermostat_reading": "value",
    "set_thermostat": "setting_id",
    "set_light": "light_id",
}
"""Tool → the field of its return that answers the user's question (the expected result)."""

REPLY_VALUES: dict[str, tuple[str, ...]] = {
    "route_status": ("available", "detour", "restricted"),
    "traffic_level": ("light", "moderate", "heavy"),
    "station_status": ("open", "limited", "closed"),
    "quote_status": ("firm", "indicative"),
    "plan_status": ("eligible", "review"),
    "condition": ("sunny", "cloudy", "rain", "snow", "fog", "windy"),
    "aqi_band": ("good", "moderate", "unhealthy", "hazardous"),
    "clock_status": ("synced", "estimated"),
    "calendar_status": ("complete", "holiday_adjusted"),
    "event_status": ("confirmed", "tentative"),
    "precision": ("exact", "rounded"),
    "stock_status": ("in_stock", "low_stock", "out_of_stock"),
    "price_status": ("regular", "discounted"),
    "order_status": ("placed", "backordered"),
    "shipment_status": ("in_transit", "out_for_delivery", "delivered", "delayed"),
    "fare_status": ("available", "waitlist", "sold_out"),
    "flight_status": ("on_time", "delayed", "boarding", "cancelled"),
    "availability": ("available", "limited", "full"),
    "booking_status": ("confirmed", "pending"),
    "delivery_status": ("sent", "queued"),
    "reminder_status": ("scheduled", "snoozed"),
    "listing_status": ("open", "closed"),
    "reservation_status": ("confirmed", "waitlisted"),
    "bmi_category": ("underweight", "normal", "overweight", "obese"),
    "intensity": ("low", "moderate", "vigorous"),
    "nutrition_grade": ("A", "B", "C", "D"),
    "confidence": ("high", "medium", "low"),
    "hvac_mode": ("heat", "cool", "auto", "eco"),
    "power": ("on", "off"),
}
"""Enumerated status field of the returns → its legal values (tool-output subtypes swap in another)."""

SAMPLE_SEED = 20260511
"""The paper's tool-sampling seed (section 4)."""
SAMPLE_SIZE = 16


def sample_tools(seed: int = SAMPLE_SEED, size: int = SAMPLE_SIZE) -> tuple[str, ...]:
    """The tools of the sample: ``random.Random(seed).sample(TOOLS, size)``, in catalogue order.

    Deterministic; the default is the paper's 16-tool sample (seed 20260511)."""
    chosen = set(random.Random(seed).sample(TOOLS, size))
    return tuple(t for t in TOOLS if t in chosen)


SAMPLED: tuple[str, ...] = sample_tools()
"""The 16 tools of the paper's sample, in catalogue order: the domain's tool registry."""


def registry_neighbours(tool: str, registry: tuple[str, ...] = SAMPLED) -> tuple[str, ...]:
    """The tools of ``registry`` a request for ``tool`` is most easily confused with, nearest
    first: its :data:`NEIGHBOURS` in the registry, then the registry's other tools of its group,
    then the rest of the registry in catalogue order (so there is always one)."""
    group = next(g for g, members in GROUPS.items() if tool in members)
    ordered = [*NEIGHBOURS[tool], *GROUPS[group], *registry]
    return tuple(t for t in dict.fromkeys(ordered) if t in registry and t != tool)
