"""TempPass (temporary access): basic TempPass per device, promotional TempPass per viewer identity.

rest-api-v2.md §4.9, §4.12, §8.7 and Adobe's documented answers (examples `profiles.by_mvpd:4-11`,
`profiles.by_code:2-9`, `decisions.authorize:6-13`):

* A TempPass MVPD (catalog `temp_pass`) needs no login. Its `temporary` profile (issuer `Adobe`)
  exists as soon as a device (basic TempPass) or a viewer identity (promotional TempPass, the
  `AP-TempPass-Identity` header: standard Base64 of a JSON object) asks for it, from profiles/{mvpd},
  profiles/code/{code} of a session for that MVPD, or the decisions APIs.
* Each device (basic) or identity (promotional, whatever the device) has its own clock: the
  TempPass lasts `temppass_ttl_s` from its first request, and stays used up after a logout
  (Adobe resets it only through its Reset TempPass API: here `/_emulator/temppass/reset`).
* Promotional TempPass also counts resources: each new resource authorized uses one of
  `temppass_resources`; a resource already authorized may be authorized again.
* Used up: profiles answer a top-level 403 `temporary_access_duration_limit_exceeded` (or
  `temporary_access_resources_limit_exceeded` once no resource is left); decisions answer HTTP 200
  with that item-level error. A promotional request without a valid identity: 400 (top-level on
  profiles, item-level on decisions) `invalid_header_identity_for_temporary_access`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any, Collection

from . import jsontext
from .catalog import Mvpd, TempPassRule
from .errors import ApiError, error_object
from .state import Profile, ProfileKey, State, TempPassKey, TempPassUse
from .web import Request, Response, json_response

IDENTITY_HEADER = "AP-TempPass-Identity"
TEMPORARY = "temporary"
SOURCE = "temppass"
DURATION_EXCEEDED = "temporary_access_duration_limit_exceeded"
RESOURCES_EXCEEDED = "temporary_access_resources_limit_exceeded"
INVALID_IDENTITY = "invalid_header_identity_for_temporary_access"


def rule(mvpd: Mvpd) -> TempPassRule:
    assert mvpd.temp_pass is not None, f"{mvpd.id} is not a TempPass MVPD"
    return mvpd.temp_pass


def identity_subject(value: str | None) -> str | None:
    """`identity:<SHA-256>` of a valid AP-TempPass-Identity (Base64 of a non-empty JSON object), else None."""
    if not value:
        return None
    try:
        identity = jsontext.loads(base64.b64decode(value.strip(), validate=True))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(identity, dict) or not identity:
        return None
    return identity_key(identity)


def identity_key(identity: dict[str, Any]) -> str:
    """`identity:<SHA-256 of the compact, sorted-key JSON>`: the TempPass subject of a viewer identity
    (V2's AP-TempPass-Identity and V1's `generic_data` alike)."""
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return "identity:" + hashlib.sha256(canonical.encode()).hexdigest()


def subject(req: Request, mvpd: Mvpd, device_id: str) -> str | None:
    """Whose TempPass this is: the device (basic), or the identity header's viewer (promotional; None if invalid)."""
    if rule(mvpd).promotional:
        return identity_subject(req.header(IDENTITY_HEADER))
    return "device:" + device_id


def use(state: State, sp: str, mvpd: Mvpd, subject_id: str, now: int) -> TempPassUse:
    """The TempPass of `subject_id`, its clock started now if this is its first request."""
    key = TempPassKey(sp, mvpd.id, subject_id)
    found = state.temppass.get(key)
    if found is None:
        temp_pass = rule(mvpd)
        ttl_s = state.config["temppass_ttl_s"].get(mvpd.id, temp_pass.ttl_s)
        limit = state.config["temppass_resources"].get(mvpd.id, temp_pass.resources) if temp_pass.promotional else None
        found = TempPassUse(key, started_ms=now, expires_ms=now + int(ttl_s * 1000), resources_limit=limit)
        state.temppass[key] = found
    return found


def used_up(found: TempPassUse, now: int) -> str | None:
    """The error code of a TempPass that cannot be used any more, or None."""
    if now >= found.expires_ms:
        return DURATION_EXCEEDED
    if found.remaining_resources() == 0:
        return RESOURCES_EXCEEDED
    return None


def profile(found: TempPassUse, profile_key: ProfileKey) -> Profile:
    """The `temporary` profile of a TempPass (attributes as in Adobe's samples)."""
    user_id = "temppass_" + hashlib.sha1(found.key.subject.encode()).hexdigest()
    attributes: dict[str, Any] = {}
    if found.resources_limit is not None:
        attributes["remaining_resources"] = {"value": found.remaining_resources(), "state": "plain"}
        attributes["used_assets"] = {"value": list(found.used_assets), "state": "plain"}
    attributes["expiration_date"] = {"value": found.expires_ms, "state": "plain"}
    attributes["userID"] = {"value": user_id, "state": "plain"}
    return Profile(key=profile_key, issuer="Adobe", type=TEMPORARY, not_before=found.started_ms,
                   not_after=found.expires_ms, attributes=attributes)


def profile_answer(state: State, req: Request, mvpd: Mvpd, profile_key: ProfileKey, now: int) -> Response:
    """profiles/{mvpd} and profiles/code/{code} for a TempPass MVPD: the profile, or a top-level error."""
    subject_id = subject(req, mvpd, profile_key.device_id)
    if subject_id is None:
        raise ApiError(INVALID_IDENTITY, f"promotional TempPass {mvpd.id} needs a valid {IDENTITY_HEADER} header")
    found = use(state, profile_key.service_provider, mvpd, subject_id, now)
    problem = used_up(found, now)
    if problem:
        raise ApiError(problem)
    return json_response(200, {"profiles": {mvpd.id: profile(found, profile_key).to_json()}})


def decisions(state: State, req: Request, mvpd: Mvpd, profile_key: ProfileKey, resources: list[str],
              authorize: bool, now: int, token: Any) -> list[dict[str, Any]]:
    """Decisions for a TempPass MVPD (source `temppass`); `token(profile, resource)` makes a media token."""
    sp = profile_key.service_provider
    subject_id = subject(req, mvpd, profile_key.device_id)
    if subject_id is None:
        return [_item(sp, mvpd.id, r, error_object(INVALID_IDENTITY)) for r in resources]
    found = use(state, sp, mvpd, subject_id, now)
    items = []
    for resource in resources:
        problem = DURATION_EXCEEDED if now >= found.expires_ms else None
        new_asset = resource not in found.used_assets
        if problem is None and new_asset and found.remaining_resources() == 0:
            problem = RESOURCES_EXCEEDED
        if problem:
            items.append(_item(sp, mvpd.id, resource, error_object(problem)))
            continue
        if not authorize:
            items.append(_item(sp, mvpd.id, resource))
            continue
        if new_asset and found.resources_limit is not None:
            found.used_assets.append(resource)
        window = {"notBefore": now, "notAfter": found.expires_ms}
        items.append({**_item(sp, mvpd.id, resource), "token": token(profile(found, profile_key), resource), **window})
    return items


def _item(sp: str, mvpd_id: str, resource: str, error: dict[str, Any] | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {"resource": resource, "serviceProvider": sp, "mvpd": mvpd_id, "source": SOURCE,
                            "authorized": error is None}
    if error is not None:
        item["error"] = error
    return item


def forget(state: State, mvpd: str | None, subjects: Collection[str] | None) -> int:
    """Reset TempPass: forget the matching uses (a new trial starts with the next request)."""
    chosen = _matching(state, mvpd, subjects)
    for key in chosen:
        del state.temppass[key]
    return len(chosen)


def expire(state: State, mvpd: str | None, subjects: Collection[str] | None, now: int) -> int:
    """End the matching TempPass uses now (as if their lifetime had passed)."""
    chosen = _matching(state, mvpd, subjects)
    for key in chosen:
        found = state.temppass[key]
        found.expires_ms = min(found.expires_ms, now)
    return len(chosen)


def _matching(state: State, mvpd: str | None, subjects: Collection[str] | None) -> list[TempPassKey]:
    return [k for k in state.temppass
            if (mvpd is None or k.mvpd == mvpd) and (subjects is None or k.subject in subjects)]
