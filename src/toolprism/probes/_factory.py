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
    from toolprism.backends import _is_model_dir

    kind, _, name = model.partition(":")
    if kind == "embedded":
        from toolprism.backends import EmbeddedBackend
        from toolprism.probes._llama import LlamaScorer

        return LlamaScorer(EmbeddedBackend(name or "smollm2"))
    if kind == "openai" or base_url:
        from toolprism.probes._server import ServerScorer

        return ServerScorer(name if kind == "openai" else model, base_url=base_url, api_key_env=api_key_env)
    if kind == "hf" or _is_model_dir(model):
        from toolprism.backends._hf import HFBackend
        from toolprism.probes._hf import HFScorer

        return HFScorer(HFBackend.from_env(name if kind == "hf" else model))
    if model == "oracle":
        raise ConfigError("the oracle is scripted and has no log-probabilities: probe a model", what="model")
    raise ConfigError(
        f"unknown model {model!r}: probes need 'embedded[:<name>]', 'hf:<model directory>' or "
        "'openai:<model>' with --base-url (a server returning prompt log-probabilities, e.g. vLLM)",
        what="model",
    )
