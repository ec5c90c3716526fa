"""Elicited runtime decisions: the agent's runtime report, parsed and scored field by field.

ToolRobustBench, section 5 ("Runtime feedback"): agents state the status, the failure type, the
retryability and the final result of a call hit by a runtime or observation perturbation, and each
field is scored after alias normalization (appendix C); fields that are no runtime decision of the
case are ``not_applicable`` and not scored. Under a C or D perturbation the system prompt asks for
the report (:data:`toolprism.perturb.RUNTIME_REPORT_INSTRUCTION`): the final answer ends with one
JSON object ``{"status", "failure_type", "retryable", "final_result"}``. toolprism asks for JSON in
the answer rather than offering a reporting tool: a tool would change the tool list, which family A
and the shaping variants vary, and every S1 and multiset count.

Each episode's report outcome is ``reported``, ``missing`` (no answer, or no object with a report
field in it) or ``unparsable`` (an object that names report fields but cannot be read as a report),
or None where no report was asked for (clean, A/B-only conditions, and traces recorded before
reports were asked for: their answers are read by the free-text fallback :func:`reported_status`).

The expected fields are the perturbation's :class:`toolprism.perturb.RuntimeLabels` (of
:func:`toolprism.perturb.report_instance`); the final result's target is the domain's
``expected_result`` unless the labels say there is none (``result_target="none"``: ``null``), and
not applicable where the perturbations leave no call to give one (B2) (:func:`result_target`).

The same target and matcher (:func:`results_match`) decide whether an episode's final answer
states its result (:func:`result_match`), which success requires where the domain fixes one
(ToolRobustBench, section 3: "Success is binary and requires agreement with gold tool, arguments,
applicable execution output, and final result").
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from toolprism.domains import Domain, get_domain
from toolprism.errors import ToolprismError
from toolprism.perturb import REPORT_MARKER, FailureType, Instance, expected_gold, report_instance
from toolprism.run import Trace
from toolprism.schema import JSON, canonical_json

ReportOutcome = Literal["reported", "missing", "unparsable"]
"""What became of a runtime report that was asked for."""
REPORT_OUTCOMES: tuple[str, ...] = ("reported", "missing", "unparsable")
ReportedStatus = Literal["success", "failure"]
REPORT_FIELDS: tuple[str, ...] = ("status", "failure_type", "retryable", "final_result")
"""The runtime report's fields, in the order the paper lists them."""

FAILURE_TYPE_ALIASES: dict[FailureType, tuple[str, ...]] = {
    "timeout": ("timeout", "timed out", "timed-out", "timed_out", "time out", "timeouterror", "504", "gateway timeout"),
    "unavailable": ("unavailable", "503", "down for maintenance", "service is down", "not available", "outage"),
    "rate_limited": ("rate limit", "rate_limited", "ratelimit", "429", "too many requests", "throttl"),
    "server_error": ("server error", "server_error", "500", "502", "bad gateway", "internal error"),
    "incomplete": ("incomplete", "missing", "truncated", "empty"),
    "inconsistent": ("inconsistent", "contradict", "mismatch", "conflict"),
    "invalid_request": ("invalid", "bad request", "400"),
}
"""Canonical failure type → words that name it (ToolRobustBench, appendix C: alias normalization)."""
STATUS_ALIASES: dict[ReportedStatus, tuple[str, ...]] = {
    "success": ("success", "succeeded", "successful", "ok", "okay", "done", "complete", "completed", "true"),
    "failure": ("failure", "failed", "fail", "error", "unsuccessful", "incomplete", "false"),
}
"""Canonical status → the words a report may use for it (toolprism's list; appendix C names the idea)."""
NONE_WORDS = ("", "null", "none", "n/a", "not applicable", "no failure")
"""Strings a report may use for an absent value (``failure_type``/``final_result``)."""
_RETRYABLE_WORDS = {
    True: ("true", "yes", "y", "retryable", "retriable", "retry"),
    False: ("false", "no", "n", "not retryable", "non-retryable", "non_retryable", "permanent"),
}
FAILURE_WORDS = (
    "could not", "couldn't", "cannot", "can't", "unable", "failed", "failure", "not possible", "error",
    "not able", "wasn't able", "weren't able", "unavailable", "timed out", "timed-out", "did not go through",
)  # fmt: skip


def _alias_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    # a word matches at a word start (``throttl`` also covers throttled); a status code only next
    # to a word that makes it one ("status 503", "HTTP 504", "429 Too Many"), never inside an
    # amount or an identifier ("$429.00", "#W5041187")
    parts = []
    for w in words:
        if w.isdigit():
            parts.append(rf"\b(?:status|error|http|code)\W{{0,3}}{w}\b")
            parts.append(rf"(?<![\w$#.,]){w}\s+(?:error|status|service|gateway|too|bad|internal)")
        else:
            parts.append(rf"(?<!\w){re.escape(w)}")
    return re.compile("|".join(parts))


_ALIASES = {canonical: _alias_pattern(words) for canonical, words in FAILURE_TYPE_ALIASES.items()}
_FAILURE = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in FAILURE_WORDS) + r")s?(?!\w)")
_NEGATED = re.compile(r"\b(?:no|without|zero|any)\b(?:\s+\w+){0,2}\s+$")
"""A failure word negated within the two words before it ("no errors", "no failures or errors")."""


def normalize_failure_type(text: str | None) -> FailureType | None:
    """The canonical failure type named in ``text`` (``"TimeoutError"`` → ``timeout``), or None.

    The first type in :data:`FAILURE_TYPE_ALIASES` order with a matching word wins; words match at
    word starts, and status codes only where a neighbouring word makes them one."""
    if not text:
        return None
    lowered = text.lower()
    return next((canonical for canonical, pattern in _ALIASES.items() if pattern.search(lowered)), None)


def reported_status(text: str | None) -> ReportedStatus | None:
    """Free-text reading (the fallback for answers given without a runtime report): ``failure``
    when the answer says the request could not be done, ``success`` otherwise, None without an
    answer. A JSON object in the answer with a ``status`` field is read first; a negated failure
    word ("no errors") does not count."""
    if not text:
        return None
    fields = _json_fields(text)
    if isinstance(fields.get("status"), str):
        return "failure" if fields["status"].lower() in ("failure", "failed", "error") else "success"
    lowered = text.lower()
    said = (m for m in _FAILURE.finditer(lowered) if not _NEGATED.search(lowered[: m.start()]))
    return "failure" if next(said, None) else "success"


def _json_fields(text: str) -> dict[str, Any]:
    for match in re.finditer(r"\{.*?\}", text, flags=re.S):
        try:
            value = json.loads(match.group())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return {}


class RuntimeReport(BaseModel):
    """A runtime report as the agent wrote it (values as given, before normalization).

    Attributes:
        status: ``success``/``failure`` or an alias (see :data:`STATUS_ALIASES`).
        failure_type: a :data:`toolprism.perturb.FailureType`, an alias of one, or None.
        retryable: a boolean, or ``yes``/``no``-like text.
        final_result: any JSON value, None when the agent says there is no result.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    status: JSON
    failure_type: JSON
    retryable: JSON
    final_result: JSON


def _objects(text: str) -> list[tuple[dict[str, Any] | None, str]]:
    """Every top-level ``{...}`` span of ``text`` (balanced braces, strings respected), with the
    object it parses to as JSON or as a Python literal (single quotes, True/None), or None."""
    spans: list[tuple[dict[str, Any] | None, str]] = []
    start, depth, quote, escaped = -1, 0, "", False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'" and depth:
            quote = ch
        elif ch == "{":
            start, depth = (i if depth == 0 else start), depth + 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append((_load(text[start : i + 1]), text[start : i + 1]))
    return spans


def _load(span: str) -> dict[str, Any] | None:
    try:
        value = json.loads(span)
    except json.JSONDecodeError:
        try:
            value = ast.literal_eval(span)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return value if isinstance(value, dict) else None


def parse_report(answer: str | None) -> tuple[ReportOutcome, RuntimeReport | None]:
    """The runtime report at the end of ``answer``: the last JSON object that carries a report
    field (code fences and text around it are ignored; a Python-literal object is read too).

    Returns:
        (``reported``, the report) when that object has all four fields; (``unparsable``, None)
        when it lacks some, or when an object that names a report field cannot be parsed;
        (``missing``, None) without an answer or any such object.
    """
    if not answer:
        return "missing", None
    named = re.compile(r"[\"']?(?:" + "|".join(REPORT_FIELDS) + r")[\"']?\s*:")
    for value, span in reversed(_objects(answer)):
        if value is None:
            if named.search(span):
                return "unparsable", None
            continue
        if not any(f in value for f in REPORT_FIELDS):
            continue
        if not all(f in value for f in REPORT_FIELDS):
            return "unparsable", None
        return "reported", RuntimeReport.model_validate(value)
    opened = answer.rfind("{")
    if opened >= 0 and named.search(answer[opened:]):  # an object left open
        return "unparsable", None
    return "missing", None


def _words(value: Any) -> str:
    return " ".join(str(value).lower().replace("_", " ").replace("-", " ").split()) if value is not None else ""


def normalize_status(value: Any) -> ReportedStatus | None:
    """``success``/``failure`` for a status or one of its aliases (``ok``, ``failed``, ``error``...),
    else None."""
    words = _words(value)
    return next((s for s, aliases in STATUS_ALIASES.items() if words in aliases), None)


def normalize_report_failure_type(value: Any) -> FailureType | Literal["none"] | None:
    """A report's failure type, canonical: a :data:`FailureType`, ``"none"`` for an absent one
    (null, ``none``, ``n/a``...), None when it names no known type."""
    if value is None or _words(value) in NONE_WORDS:
        return "none"
    return normalize_failure_type(_words(value))


def normalize_retryable(value: Any) -> bool | None:
    """A report's retryability as a boolean (``true``/``yes``/``retryable`` → True), else None."""
    if isinstance(value, bool):
        return value
    words = _words(value)
    return next((flag for flag, aliases in _RETRYABLE_WORDS.items() if words in map(_words, aliases)), None)


def normalize_result(value: JSON) -> JSON:
    """A final result in comparable form: numbers (and numeric strings) as floats, strings
    lower-cased with whitespace collapsed, ``null``-like strings as None, objects and lists
    normalized throughout (objects compare by canonical JSON)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = " ".join(value.lower().split())
        if text in NONE_WORDS:
            return None
        try:
            number = float(text.replace(",", ""))
        except ValueError:
            return text
        return number if math.isfinite(number) else text
    if isinstance(value, dict):
        return {str(k): normalize_result(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize_result(v) for v in value]
    return value


_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\w)")
"""A number as text states it: optional sign, thousands separators, decimals; not inside a word or
an identifier (``SM4532`` states no number)."""


def _decimals(number: float) -> int:
    """The decimals a return printed ``number`` with (``2557.38`` → 2, ``146`` → 0)."""
    if isinstance(number, int):
        return 0
    text = repr(float(number))
    return len(text.split(".")[1]) if "." in text and "e" not in text else 0


def _close(stated: float, target: float) -> bool:
    """``stated`` rounds to ``target`` (as the return gave it: an int has no decimals) at its
    precision: within half a unit of its last decimal (``2557.38``: ±0.005; ``146``: ±0.5), plus
    float noise."""
    return abs(stated - target) <= 0.5 * 10 ** -_decimals(target) + 1e-9 * max(1.0, abs(target))


def results_match(reported: JSON, expected: JSON) -> bool:
    """Whether ``reported`` (a runtime report's ``final_result``, or an answer's text) states the
    result ``expected``; the one matcher of the final result (toolprism's reading of the paper's
    "agreement with ... final result", ToolRobustBench section 3):

    - a null ``expected`` (there is no result): ``reported`` is null or a null-like string;
    - a number: ``reported`` is a number, or a text containing one, that rounds to ``expected`` at
      the precision the return gave it (within half a unit of its last decimal: ``2557.38`` is met
      by ``2557.38``/``2,557.380``, not ``2557.4``; ``146`` by ``146`` or ``146.0``);
    - a string: ``reported`` contains it as a whole word or phrase, case-, space-, underscore- and
      hyphen-insensitively (``on_time`` is met by ``"The flight is on time."``);
    - a boolean, object or list: equal after :func:`normalize_result` (objects by canonical JSON).

    An object or list ``reported`` against a number or string is read as its canonical JSON text."""
    if normalize_result(expected) is None:
        return normalize_result(reported) is None
    if isinstance(expected, bool) or not isinstance(expected, (int, float, str)):
        return canonical_json(normalize_result(reported)) == canonical_json(normalize_result(expected))
    if reported is None or isinstance(reported, bool):
        return False
    text = canonical_json(reported) if isinstance(reported, (dict, list)) else reported
    if isinstance(expected, (int, float)):
        numbers = [text] if isinstance(text, (int, float)) else [n.replace(",", "") for n in _NUMBER.findall(text)]
        return any(_close(float(n), expected) for n in numbers)
    phrase = _words(expected)
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", _words(text)) is not None


class RuntimeMatches(BaseModel):
    """Per-field agreement of a report with the expected labels: True/False, or None where the
    field is ``not_applicable`` (no expected value: retryability where nothing can be retried, a
    final result where the domain fixes none or the perturbations leave no call to give one), or
    where no report was read."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: bool | None = None
    failure_type: bool | None = None
    retryable: bool | None = None
    final_result: bool | None = None


class RuntimeScore(BaseModel):
    """The runtime report of one episode, scored.

    Attributes:
        requested: the system prompt asked for a report (a C or D condition recorded since reports
            were asked for).
        outcome: ``reported``/``missing``/``unparsable``; None when none was requested.
        report: the report read, when ``reported``.
        matches: per-field agreement; every field is False for a missing or unparsable report
            (an applicable field that was not stated does not match) and None where not applicable.
        status / failure_type: the report's status and failure type, normalized.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    requested: bool
    outcome: ReportOutcome | None = None
    report: RuntimeReport | None = None
    matches: RuntimeMatches = RuntimeMatches()
    status: ReportedStatus | None = None
    failure_type: FailureType | None = None


def report_requested(trace: Trace) -> bool:
    """Whether the episode's system prompt asked for a runtime report (read from the trace)."""
    system = next((m for m in trace.messages if m.get("role") == "system"), None)
    return bool(system) and REPORT_MARKER in str(system.get("content") or "")


def expected_final_result(instance: Instance, trace: Trace, domain: Domain | None) -> tuple[bool, JSON]:
    """(applicable, target) of the report's ``final_result``: ``null`` when the labels say there
    is no result, else :func:`result_target` (not applicable where the domain fixes no result, the
    domain cannot be loaded, or the perturbations leave no call to give one)."""
    if instance.labels.result_target == "none":
        return True, None
    return result_target(trace, domain)


def result_target(trace: Trace, domain: Domain | None = None) -> tuple[bool, JSON]:
    """(judged, target) of the final result a successful episode states (ToolRobustBench, section
    3: success "requires agreement with ... final result"; appendix B.1: the expected result is
    fixed on the clean anchor, and perturbations may define another post-execution target).

    - not judged (False, None) where the domain fixes no result (``Domain.expected_result`` is
      None: every stateful domain) or cannot be loaded; and where the perturbations take the
      result-giving call out of the expected gold without a failure status (B2: the correct move is
      to ask, so there is no result to state);
    - (True, None) where the runtime labels say there is no result (``result_target="none"``: a
      permanent runtime failure, D1): the answer must not claim a value;
    - else (True, the domain's ``expected_result``)."""
    case, expected = _result_case(trace, domain)
    return (case in ("null", "stated"), expected if case == "stated" else None)


def _result_case(trace: Trace, domain: Domain | None) -> tuple[Literal["unjudged", "null", "ask", "stated"], JSON]:
    """What a correct final answer does about the result, with the domain's expected result:
    ``unjudged`` (the domain fixes none, or cannot be loaded), ``null`` (a permanent runtime
    failure: no result), ``ask`` (the result-giving call left the expected gold: B2), ``stated``."""
    try:
        domain = domain or get_domain(trace.task.domain)
        task = trace.task.to_task()
        expected = domain.expected_result(task)
    except ToolprismError:
        return "unjudged", None
    if expected is None:
        return "unjudged", None
    instance = report_instance(trace.perturbations)
    if instance is not None and instance.labels.result_target == "none":
        return "null", None
    if len(expected_gold(task.gold, trace.perturbations)) < len(task.gold):
        return "ask", expected
    return "stated", expected


def must_ask(trace: Trace, domain: Domain | None = None) -> bool:
    """Whether a correct final answer asks the user instead of stating a result: the domain fixes
    an expected result, and the perturbations take the result-giving call out of the expected gold
    without a failure status (B2: the request no longer gives a value the call needs)."""
    return _result_case(trace, domain)[0] == "ask"


def asks(answer: str | None) -> bool:
    """Whether the final answer asks the user something (it contains a question mark): toolprism's
    reading of what the correct move under an underspecified request (B2) is; the paper gives none."""
    return bool(answer) and "?" in answer


def runtime_decided(trace: Trace, runtime: RuntimeScore) -> bool | None:
    """Whether a runtime case's report states the right decisions: reported, with status, failure
    type and retryability matching (ToolRobustBench, section 3: "runtime cases additionally check
    predicted runtime fields"). None where the episode is not a runtime case: no runtime (D)
    perturbation, or no report asked for (traces recorded before reports were)."""
    if not runtime.requested or not any(i.family == "D" for i in trace.perturbations):
        return None
    m = runtime.matches
    return runtime.outcome == "reported" and False not in (m.status, m.failure_type, m.retryable)


def result_match(trace: Trace, domain: Domain | None = None, runtime: RuntimeScore | None = None) -> bool | None:
    """Whether the episode's final answer states its :func:`result_target` (:func:`results_match`),
    None where the result is not judged. Read from the runtime report's ``final_result`` when a
    report was read (``runtime``: :func:`score_runtime` of the trace, computed when not given),
    else from the answer's text (no answer: False). Where the correct answer asks instead
    (:func:`must_ask`: B2 on a domain that fixes a result), whether it asks (:func:`asks`).
    toolprism's reading for a null target without
    a report: not judged (None), since free text cannot tell a claimed value from any other
    number; S4 judges what such an answer says about the failure."""
    case, target = _result_case(trace, domain)
    if case == "ask":
        return asks(trace.answer)
    if case == "unjudged":
        return None
    target = target if case == "stated" else None
    runtime = runtime or score_runtime(trace, domain)
    if runtime.outcome == "reported" and runtime.report is not None:
        return results_match(runtime.report.final_result, target)
    if target is None:
        return None
    return results_match(trace.answer, target)


def score_runtime(trace: Trace, domain: Domain | None = None) -> RuntimeScore:
    """Parse and score the runtime report of ``trace`` (a pure function of the trace and the
    domain's ``expected_result``)."""
    instance = report_instance(trace.perturbations)
    if instance is None or not report_requested(trace):
        return RuntimeScore(requested=False)
    labels = instance.labels
    outcome, report = parse_report(trace.answer)
    applicable, target = expected_final_result(instance, trace, domain)
    if report is None:
        miss = RuntimeMatches(
            status=False,
            failure_type=False,
            retryable=False if labels.retryable is not None else None,
            final_result=False if applicable else None,
        )
        return RuntimeScore(requested=True, outcome=outcome, matches=miss)
    status = normalize_status(report.status)
    failure_type = normalize_report_failure_type(report.failure_type)
    matches = RuntimeMatches(
        status=status == labels.status,
        failure_type=failure_type == (labels.failure_type or "none"),
        retryable=None if labels.retryable is None else normalize_retryable(report.retryable) == labels.retryable,
        final_result=results_match(report.final_result, target) if applicable else None,
    )
    return RuntimeScore(
        requested=True,
        outcome=outcome,
        report=report,
        matches=matches,
        status=status,
        failure_type=failure_type if failure_type != "none" else None,
    )


class FieldRate(BaseModel):
    """Agreement of one report field over the episodes where it applies.

    Attributes:
        matches: episodes whose report states the expected value (after normalization).
        n: episodes where the field applies and a report was asked for (a missing or unparsable
            report counts, as a mismatch).
        rate: ``matches / n``; None when ``n`` is 0.
    """

    model_config = ConfigDict(extra="forbid")

    matches: int
    n: int
    rate: float | None


class RuntimeFieldRow(BaseModel):
    """Runtime-report outcomes and per-field match rates of one model under one subtype (all
    severities pooled; a mixed pair is its own row, ``A3+C4``). ToolRobustBench, section 5:
    retryability .949, failure type .917, status .783, final result .738 over its models.

    Attributes:
        model: the run's model (its header); ``family``: the subtype's family (``A+C`` for a pair);
        subtype: ``C2`` or ``A3+C4``; episodes: episodes of the subtype's conditions;
        requested: those whose prompt asked for a report (0 in runs made before reports were);
        reported / missing / unparsable: the outcome counts of the requested ones;
        status / failure_type / retryable / final_result: each field's :class:`FieldRate`.
    """

    model_config = ConfigDict(extra="forbid")

    model: str
    family: str
    subtype: str
    episodes: int
    requested: int
    reported: int
    missing: int
    unparsable: int
    status: FieldRate
    failure_type: FieldRate
    retryable: FieldRate
    final_result: FieldRate


def _rate(values: list[bool | None]) -> FieldRate:
    judged = [v for v in values if v is not None]
    return FieldRate(matches=sum(judged), n=len(judged), rate=sum(judged) / len(judged) if judged else None)


def runtime_rows(
    model: str, episodes: list[tuple[list[Instance], ReportOutcome | None, RuntimeMatches | None]]
) -> list[RuntimeFieldRow]:
    """One :class:`RuntimeFieldRow` per subtype (or mixed pair) with a C or D perturbation, in
    subtype order, single subtypes first.

    Args:
        model: the run's model name.
        episodes: per episode, its perturbation instances, its report outcome and its per-field
            matches (both None where no report was asked for); clean and A/B-only episodes are
            left out.
    """
    cells: dict[str, list[tuple[ReportOutcome | None, RuntimeMatches | None]]] = {}
    families: dict[str, str] = {}
    for instances, outcome, matches in episodes:
        if report_instance(instances) is None:
            continue
        subtype = "+".join(i.subtype for i in instances)
        families[subtype] = "+".join(i.family for i in instances)
        cells.setdefault(subtype, []).append((outcome, matches))
    rows = []
    for subtype in sorted(cells, key=lambda s: (s.count("+"), s)):
        scored = cells[subtype]
        outcomes = [o for o, _ in scored if o is not None]
        matches = [m for _, m in scored if m is not None]
        rows.append(
            RuntimeFieldRow(
                model=model,
                family=families[subtype],
                subtype=subtype,
                episodes=len(scored),
                requested=len(outcomes),
                **{o: outcomes.count(o) for o in REPORT_OUTCOMES},
                **{f: _rate([getattr(m, f) for m in matches]) for f in REPORT_FIELDS},
            )
        )
    return rows
