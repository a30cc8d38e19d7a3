"""Strictness: the named switches where Adobe's sources disagree (aepass/strictness.py), the
`strictness` preset of the control API, and the README's table of them (one home: strictness.py;
the README copy is checked here)."""

from __future__ import annotations

import re

import pytest

from aepass.config import ConfigError, default_config, merged
from aepass.strictness import SWITCHES
from emulator_testkit import Api
from emulator_testkit import EMULATOR_DIR


def test_defaults_are_adobes_documented_behaviour_and_strict_sets_every_switch() -> None:
    config = default_config()
    assert config["strictness"] == "adobe"
    assert all(config[s.key] == s.adobe for s in SWITCHES)
    strict = merged(config, {"strictness": "strict"})
    assert all(strict[s.key] == s.strict for s in SWITCHES)
    assert all(merged(strict, {"strictness": "adobe"})[s.key] == s.adobe for s in SWITCHES)
    # A switch named in the same call wins over the preset.
    first = SWITCHES[0]
    assert merged(config, {"strictness": "strict", first.key: first.adobe})[first.key] == first.adobe


@pytest.mark.parametrize("patch", [{"strictness": "lenient"}, {"strictness": None},
                                   *({s.key: "sometimes"} for s in SWITCHES)])
def test_bad_strictness_values_are_refused(patch: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        merged(default_config(), patch)


def test_the_control_api_takes_the_preset_and_reset_restores_the_start(api: Api) -> None:
    assert api.control("POST", "config", {"strictness": "strict"})["device_info_header"] == "required"
    api.control("POST", "reset", {"config": True})
    assert api.control("GET", "config")["device_info_header"] == "optional"


def _readme_switch_rows() -> dict[str, tuple[str, str]]:
    text = (EMULATOR_DIR / "README.md").read_text(encoding="utf-8")
    section = text.split("### Strictness switches", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| `\"?(\w+)\"?` \| `\"?(\w+)\"?` \|", section, re.MULTILINE)
    return {key: (adobe, strict) for key, adobe, strict in rows}


def test_the_readme_table_lists_every_switch_with_its_values() -> None:
    rows = _readme_switch_rows()
    assert rows == {s.key: (s.adobe, s.strict) for s in SWITCHES}
