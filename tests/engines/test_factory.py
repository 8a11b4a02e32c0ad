"""make_engine: config forms, option validation, and one-line hints for missing extras."""

from __future__ import annotations

import builtins

import pytest

from collabrl.engines import EngineConfig, MissingExtraError, SamplingParams, make_engine


def test_config_forms_are_equivalent():
    flat = EngineConfig.from_mapping({"backend": "openai", "model": "m", "concurrency": 3})
    nested = EngineConfig.from_mapping(
        {"backend": "openai", "model": "m", "options": {"concurrency": 3}}
    )
    assert flat == nested == EngineConfig("openai", "m", {"concurrency": 3})


def test_bad_configs_rejected():
    with pytest.raises(ValueError, match="unknown engine backend"):
        make_engine({"backend": "nope", "model": "m"})
    with pytest.raises(ValueError, match="needs 'model'"):
        make_engine({"backend": "openai"})
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['concurency'\]"):
        make_engine({"backend": "openai", "model": "m", "concurency": 3})


def test_missing_extra_names_the_install(monkeypatch):
    real_import = builtins.__import__

    def no_vllm(name, *args, **kwargs):
        if name == "vllm" or name.startswith("vllm."):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_vllm)
    monkeypatch.delitem(__import__("sys").modules, "vllm", raising=False)
    with pytest.raises(MissingExtraError, match=r"pip install 'collabrl\[vllm\]'") as info:
        make_engine({"backend": "vllm", "model": "m"})
    assert "\n" not in str(info.value)


def test_sampling_params_validated():
    with pytest.raises(ValueError):
        SamplingParams(top_p=0)
    with pytest.raises(ValueError):
        SamplingParams(n=0)
    assert SamplingParams(stop=["</action>"]).stop == ("</action>",)
    assert SamplingParams(temperature=0).greedy
