"""``create_scorer``: the :class:`~toolprism.probes.LogprobScorer` for a model name, named as
``--model`` names it everywhere else."""

from __future__ import annotations

from toolprism.errors import ConfigError
from toolprism.probes._scorer import LogprobScorer


def create_scorer(
    model: str = "embedded", *, base_url: str | None = None, api_key_env: str | None = None
) -> LogprobScorer:
    """The scorer for ``model``:

    - ``embedded`` / ``embedded:<name>``: the embedded GGUF model through llama.cpp
      (``toolprism.probes._llama.LlamaScorer``);
    - ``hf:<directory>`` or a directory with a ``config.json``: transformers
      (``toolprism.probes._hf.HFScorer``, options from ``TOOLPRISM_HF_*``);
    - ``openai:<model>`` or any name with ``base_url``: a server that returns prompt
      log-probabilities (``toolprism.probes._server.ServerScorer``; vLLM).

    Raises:
        ConfigError: a model with no log-probabilities (``oracle``), an unknown name, or a
            missing optional dependency (with its install hint).
    """
    from toolprism.backends import create_backend

    kind, _, name = model.partition(":")
    if model == "oracle":
        raise ConfigError("the oracle is scripted and has no log-probabilities: probe a model", what="model")
    if kind == "openai" or base_url:
        from toolprism.probes._server import ServerScorer

        return ServerScorer(name if kind == "openai" else model, base_url=base_url, api_key_env=api_key_env)
    backend = create_backend(model)  # an unknown name is a ConfigError listing the known ones
    if backend.name == "embedded":
        from toolprism.probes._llama import LlamaScorer

        return LlamaScorer(backend)
    if backend.name == "hf":
        from toolprism.probes._hf import HFScorer

        return HFScorer(backend)
    raise ConfigError(
        f"{model!r} has no log-probabilities: probes need 'embedded[:<name>]', 'hf:<model directory>' or "
        "'openai:<model>' with --base-url (a server returning prompt log-probabilities, e.g. vLLM)",
        what="model",
    )
