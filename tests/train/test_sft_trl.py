"""The ``hf`` SFT export is what TRL's ``SFTTrainer`` trains on: one optimiser step of a tiny
random model (built in the test, nothing downloaded) over the exported ``messages`` and ``tools``
(JSON text, decoded by TRL), on CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")
datasets = pytest.importorskip("datasets")
trl = pytest.importorskip("trl")

from _tiny_hf import build_model  # noqa: E402

from toolprism.train import SftOptions, export_sft  # noqa: E402

pytestmark = [pytest.mark.hf, pytest.mark.sft]


def test_sft_trainer_takes_a_step_on_the_hf_export(tmp_path: Path) -> None:
    import transformers

    export_sft(tmp_path / "data", SftOptions(variants=("native", "merge"), domains=("smart_home",), format="hf",
                                             limit=4))  # fmt: skip
    train = datasets.load_dataset(str(tmp_path / "data"), split="train")
    model_dir = build_model(tmp_path / "model")
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    model = transformers.AutoModelForCausalLM.from_pretrained(model_dir)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    config = trl.SFTConfig(
        output_dir=str(tmp_path / "out"), max_steps=1, per_device_train_batch_size=2, report_to="none",
        use_cpu=True, save_strategy="no", max_length=4096, learning_rate=1e-2,
    )  # fmt: skip
    trainer = trl.SFTTrainer(model=model, args=config, train_dataset=train, processing_class=tokenizer)
    first = trainer.train_dataset[0]
    text = tokenizer.decode(first["input_ids"])
    assert "<tool_call>" in text and '"name": "get_room_status"' in text  # the call and the tools (decoded JSON)
    result = trainer.train()
    assert result.global_step == 1
    assert any(not (p.detach() == before[n]).all() for n, p in model.named_parameters())
