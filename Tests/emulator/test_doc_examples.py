"""The emulator's answers have the shapes of Adobe's documented examples.

Reads `v2-doc-examples.json` (Adobe's doc examples, MIT; see `examples/README.md`) from
$AE_DOC_EXAMPLES, else `Emulator/examples/`, else the shared reference folder;
skipped when none exists.
Shape = same keys with the same JSON types. Map keys that are data (MVPD ids, attribute
names, session parameters) are ignored, attribute `value`s may have any type (erratum E1),
and `details`/`trace` may be added to error objects (documented Enhanced Error Code fields).
MVPDs may carry the platform-SSO fields that the configuration sample does not show (OpenAPI
`MvpdType` fields, and V1's `requiredMetadataFields`); test_partner_sso.py checks their values.
`isTempPass` is only on the sample's TempPass MVPDs; test_temporary_access.py checks those.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from emulator_testkit import ALL_SESSION_PARAMS, REDIRECT_URL, Api, device_headers

EXAMPLE_FILES = [
    Path(__file__).resolve().parents[2] / "Emulator" / "examples" / "v2-doc-examples.json",
    Path("/work/shared/reference/examples/v2-doc-examples.json"),
]
EXAMPLES = Path(os.environ["AE_DOC_EXAMPLES"]) if "AE_DOC_EXAMPLES" in os.environ else next(
    (p for p in EXAMPLE_FILES if p.exists()), EXAMPLE_FILES[0])
MAP_KEYS = {"profiles", "logouts", "attributes", "existingParameters"}
OPTIONAL_KEYS = {"details", "trace"}
PLATFORM_KEYS = {"platformMappingId", "enablePlatformServices", "boardingStatus",
                 "displayInPlatformPicker", "requiredMetadataFields", "isTempPass"}

pytestmark = pytest.mark.skipif(not EXAMPLES.exists(), reason=f"{EXAMPLES} not found")


@lru_cache(maxsize=1)
def _examples() -> dict[str, Any]:
    items = json.loads(EXAMPLES.read_text(encoding="utf-8"))
    return {i["id"]: i["response_json"] or i["response_json_repaired"] for i in items}


def example(example_id: str) -> Any:
    return _examples()[example_id]


def shape_problems(ours: Any, theirs: Any, path: str = "$") -> list[str]:
    if isinstance(theirs, dict):
        if not isinstance(ours, dict):
            return [f"{path}: expected an object"]
        if path.rsplit(".", 1)[-1] in MAP_KEYS:
            sample = next(iter(theirs.values()))
            return [p for value in ours.values() for p in shape_problems(value, sample, f"{path}.*")]
        problems = [f"{path}.{k}: missing" for k in theirs if k not in ours]
        optional = OPTIONAL_KEYS | (PLATFORM_KEYS if path.endswith(".mvpds[]") else set())
        problems += [f"{path}.{k}: not in the example" for k in ours
                     if k not in theirs and k not in optional]
        return problems + [p for k in theirs if k in ours and k != "value"
                           for p in shape_problems(ours[k], theirs[k], f"{path}.{k}")]
    if isinstance(theirs, list):
        if not isinstance(ours, list):
            return [f"{path}: expected an array"]
        return [p for item in ours for p in shape_problems(item, theirs[0], f"{path}[]")] if theirs else []
    if type(ours) is not type(theirs):
        return [f"{path}: {type(ours).__name__} where the example has {type(theirs).__name__}"]
    return []


def assert_shape(ours: Any, example_id: str, theirs: Any = None) -> None:
    problems = shape_problems(ours, example(example_id) if theirs is None else theirs)
    assert not problems, f"{example_id}: {problems}"


def test_dcr_answers(api: Api) -> None:
    registered = api.register()
    assert_shape(registered.json, "dcr.register:1")
    assert_shape(api.token(registered.json["client_id"], registered.json["client_secret"]).json, "dcr.token:1")
    assert_shape(api.token("unknown", "x").json, "dcr.token:2")


def test_session_answers(api: Api) -> None:
    token = api.new_access_token()
    assert_shape(api.v2("GET", "/configuration", token).json, "configuration.get:1")
    authenticate = api.create_session(token, **ALL_SESSION_PARAMS).json
    assert_shape(authenticate, "sessions.create:1")
    resume = api.create_session(token, device="tv-2").json
    assert_shape(resume, "sessions.create:2")

    retry = api.v2("POST", f"/sessions/{resume['code']}", token, device=None,
                   form={"mvpd": "Cablevision", "domainName": "adobe.com"}).json
    assert_shape(retry, "sessions.resume:2")
    status = api.v2("GET", f"/sessions/{resume['code']}", token, device=None).json
    documented = example("sessions.retrieve:2")
    assert_shape({**status, "device": {}}, "", {**documented, "device": {}})
    assert set(status["device"]) <= set(documented["device"])
    resumed = api.v2("POST", f"/sessions/{resume['code']}", token, device=None,
                     form={"redirectUrl": REDIRECT_URL}).json
    assert_shape(resumed, "sessions.resume:1")

    api.login(authenticate["code"])
    assert_shape(api.create_session(token, **ALL_SESSION_PARAMS).json, "sessions.create:3")
    api.login(resume["code"])
    authorize = api.v2("POST", f"/sessions/{resume['code']}", token, device=None, form={}).json
    assert_shape(authorize, "sessions.resume:3")


def test_profile_decision_and_logout_answers(api: Api) -> None:
    token = api.new_access_token()
    code = api.create_session(token, **ALL_SESSION_PARAMS).json["code"]
    api.login(code)
    assert_shape(api.v2("GET", "/profiles", token).json, "profiles.list:1")
    assert_shape(api.v2("GET", "/profiles/Cablevision", token).json, "profiles.by_mvpd:1")
    assert_shape(api.v2("GET", f"/profiles/code/{code}", token, device=None).json, "profiles.by_code:1")

    resources = {"resources": ["REF30", "PREMIUM-DENIED"]}
    pre = api.v2("POST", "/decisions/preauthorize/Cablevision", token, json_body=resources).json["decisions"]
    documented = example("decisions.preauthorize:1")["decisions"]
    assert_shape(pre[0], "", documented[0])
    assert_shape(pre[1], "", documented[2])
    authz = api.v2("POST", "/decisions/authorize/Cablevision", token, json_body=resources).json["decisions"]
    assert_shape(authz[0], "", example("decisions.authorize:1")["decisions"][0])
    assert_shape(authz[1], "", example("decisions.authorize:2")["decisions"][0])

    query = {"redirectUrl": REDIRECT_URL}
    assert_shape(api.v2("GET", "/logout/Cablevision", token, query=query).json, "logout.initiate:1")
    api.login(api.create_session(token, **{**ALL_SESSION_PARAMS, "mvpd": "Dish"}).json["code"])
    assert_shape(api.v2("GET", "/logout/Dish", token, query=query).json, "logout.initiate:2")


def test_top_level_error(api: Api) -> None:
    token = api.new_access_token()
    reply = api.request("GET", "/api/v2/NOPE/configuration",
                        headers={"Authorization": f"Bearer {token}", **device_headers()})
    assert_shape(reply.json, "error_examples.v2:2")
    assert reply.json["message"] == example("error_examples.v2:2")["message"]
