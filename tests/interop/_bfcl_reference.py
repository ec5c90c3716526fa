"""BFCL's own checker on cases read from stdin: run with a Python that has ``bfcl-eval``.

Input (stdin, JSON): ``[{"category", "functions", "output", "answers"}, ...]``; output (stdout, JSON):
``[{"valid", "error_type"}, ...]``, one per case, from ``bfcl_eval``'s ``ast_checker`` (AST
categories) and ``is_empty_output`` (irrelevance), as its eval runner calls them.

``bfcl_eval.constants.model_config`` imports every model handler (openai, anthropic, torch...); when
those are absent it is replaced by a stand-in mapping before the checker is imported. The checker
uses it only to ask whether a model's function names had dots turned into underscores: here
never, since the calls carry BFCL's own names.
"""

import json
import sys
import types


class _NoRename(dict):
    def __missing__(self, key):
        return types.SimpleNamespace(underscore_to_dot=False)


def _import_checker():
    try:
        import bfcl_eval.constants.model_config  # noqa: F401
    except Exception:  # the model handlers' SDKs are not installed: a stand-in is enough
        stand_in = types.ModuleType("bfcl_eval.constants.model_config")
        stand_in.MODEL_CONFIG_MAPPING = _NoRename()
        sys.modules["bfcl_eval.constants.model_config"] = stand_in
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval import ast_checker as module
    from bfcl_eval.utils import is_empty_output

    module.MODEL_CONFIG_MAPPING = _NoRename()
    return module.ast_checker, is_empty_output, Language.PYTHON


def main() -> None:
    ast_checker, is_empty_output, python = _import_checker()
    verdicts = []
    for case in json.load(sys.stdin):
        if "irrelevance" in case["category"]:
            valid = is_empty_output(case["output"])
            verdicts.append({"valid": valid, "error_type": "" if valid else "irrelevance_error:decoder_success"})
            continue
        result = ast_checker(case["functions"], case["output"], case["answers"], python, case["category"], "model")
        verdicts.append({"valid": result["valid"], "error_type": "" if result["valid"] else result["error_type"]})
    json.dump(verdicts, sys.stdout)


if __name__ == "__main__":
    main()
