"""What the scripted oracle gets on ToolRobustBench's environment, per subtype and severity.

``toolprism run -d trb --model oracle --perturb-suite all`` (``benchmarks/trb_oracle.py``) poses 48
anchors per (subtype, severity) cell; success needs the gold call and, since the environment fixes
an expected result, a final answer that states it (ToolRobustBench, section 3). The oracle walks
the gold call through the variant's encoder, cannot see perturbations, resends a call the runtime
failed (up to three times), reads once more a read whose return came back as an error, empty or
without the answer field, and states the answer field's value it READ from the last successful
return (``toolprism.backends._oracle.read_field``: keys case- and underscore-blind, through
wrappers and ``key=value`` text, the latest ``as_of`` among competing records). So:

- clean, A1-A3, B1, B3, B4: 48/48 (the same call through the interface really accepted; the
  request is never read; the clean return states the result);
- B2: 0/48 (the request no longer gives a value the call needs: a correct agent asks and calls
  nothing and asks, the oracle calls the gold anyway and states the result);
- C1: 48/48 (camelCase, wrapped or ``key=value`` payloads: the reader finds the field);
- C2: a read whose answer field was dropped (or whose payload became an error or empty) is read
  again and the change hits only the first call; a write (``send_sms``, ``set_light``) is not redone,
  so where its answer field (``message_id``, ``light_id``) is gone the oracle has no result: light
  47 (one field dropped: once the answer of a write), medium 46 (half the fields: twice), heavy 42
  (an error string in place of every payload: the six write anchors);
- C3: a falsified answer field is what the oracle reads and reports: it cannot know. Light 42 (an
  enumerated field swapped: the answer of ``get_weather_forecast``/``get_flight_status``, six
  anchors), medium 42 (an identifier swapped: the answer of the two writes, six anchors), heavy 19
  (an enum, an identifier and a number swapped: 29 anchors' answers among them);
- C4: 48/48 (the current record has the latest ``as_of``);
- D1: 48/48 (every call of the blocked tool fails; nothing runs, which the empty expected gold
  asks; its report says ``failure`` with a null ``final_result``, the target after a permanent
  failure);
- D2, D3: 48/48 (transient failures: a resend succeeds and its return states the result).

toolprism's construction (the paper reports no oracle); ``tests/domains/test_trb.py`` runs the
oracle and checks every cell, and why each failure fails.
"""

from __future__ import annotations

ORACLE_SUCCESS: dict[str, tuple[int, int, int]] = {
    "A1": (48, 48, 48),
    "A2": (48, 48, 48),
    "A3": (48, 48, 48),
    "B1": (48, 48, 48),
    "B2": (0, 0, 0),
    "B3": (48, 48, 48),
    "B4": (48, 48, 48),
    "C1": (48, 48, 48),
    "C2": (47, 46, 42),
    "C3": (42, 42, 19),
    "C4": (48, 48, 48),
    "D1": (48, 48, 48),
    "D2": (48, 48, 48),
    "D3": (48, 48, 48),
}
"""Subtype → the oracle's successes of the 48 anchors of its cell at light, medium and heavy
severity (module docstring: why). Clean: 192 of 192."""
