"""V1 TempPass (rest-api-v1.md §5.17, §9.1): the passes `POST /api/v1/authenticate/freepreview` starts.

Every TempPass MVPD of the requestor works: the catalog MVPDs with a `temp_pass` rule (as V2's
TempPass, `aepass/temppass.py`) and the V1-only pseudo-MVPDs (`Requestor.temp_passes`, no rule).
Where V1's docs are silent this follows the V2 emulation:

* Whose pass: basic TempPass per device (`deviceId`); promotional TempPass per viewer identity,
  the `generic_data` JSON object (required), keyed by the SHA-256 of its compact, sorted-key JSON,
  as V2 keys `AP-TempPass-Identity`: one promotion per identity, whatever the device.
* Lifetime: `temppass_ttl_s[mvpd]` if set, else the catalog rule's `ttl_s`, else (a pseudo-MVPD)
  `temp_pass_ttl_s`; counted from the first freepreview of that device / identity.
* The state is `State.temp_passes`: `TempPassKey(requestor, mvpd, subject)` -> end (ms), apart from
  V2's uses (V1 keeps no resource count: the promotional resource limit is not documented for V1).
"""

from __future__ import annotations

import hashlib
from typing import Collection

from .. import jsontext
from ..catalog import Mvpd
from ..state import V1_CLIENT, State, TempPassKey
from ..temppass import identity_key
from .answers import bad_request

TEMPORARY = "temporary"  # the `kind` (profile type) of the authN tokens freepreview makes
EXAMPLE_IDENTITY = '{"email":"viewer@example.com"}'


def device_subject(device_id: str) -> str:
    return "device:" + device_id


def subject(mvpd: Mvpd, device_id: str, generic_data: str | None) -> str:
    """Whose pass this is: the device (basic), or the `generic_data` identity (promotional; 400 if
    missing or not a non-empty JSON object). Basic TempPass ignores `generic_data`."""
    if not (mvpd.temp_pass and mvpd.temp_pass.promotional):
        return device_subject(device_id)
    if not generic_data:
        raise bad_request(f"the promotional TempPass {mvpd.id} needs generic_data, a JSON object such as "
                          f"{EXAMPLE_IDENTITY}")
    try:
        identity = jsontext.loads(generic_data)
    except ValueError:
        identity = None
    if not isinstance(identity, dict) or not identity:
        raise bad_request(f"generic_data must be a non-empty JSON object such as {EXAMPLE_IDENTITY}")
    return identity_key(identity)


def lifetime_ms(state: State, mvpd: Mvpd) -> int:
    override = state.config["temppass_ttl_s"].get(mvpd.id)
    if override is not None:
        seconds = override
    elif mvpd.temp_pass is not None:
        seconds = mvpd.temp_pass.ttl_s
    else:  # a V1 pseudo-MVPD (`TempPass`): no catalog rule
        seconds = state.config["temp_pass_ttl_s"]
    return int(seconds * 1000)


def user_id(subject_id: str) -> str:
    """The `userId` of a pass's authN tokens: the same for every device of a promotional identity."""
    return "temppass-" + hashlib.sha256(subject_id.encode()).hexdigest()[:12]


def forget(state: State, mvpd: str | None, subjects: Collection[str] | None) -> int:
    """Reset TempPass: forget the matching passes (the next freepreview starts a new one)."""
    chosen = _matching(state, mvpd, subjects)
    for key in chosen:
        del state.temp_passes[key]
    return len(chosen)


def expire(state: State, mvpd: str | None, subjects: Collection[str] | None, now: int) -> int:
    """End the matching passes now, and the authN tokens they made."""
    chosen = _matching(state, mvpd, subjects)
    for key in chosen:
        state.temp_passes[key] = min(state.temp_passes[key], now)
        holder = user_id(key.subject)
        for token in state.profiles.values():
            if (token.key.client_id == V1_CLIENT and token.type == TEMPORARY
                    and token.key.service_provider == key.service_provider and token.key.mvpd == key.mvpd
                    and token.attributes["userID"]["value"] == holder):
                token.not_after = min(token.not_after, now)
                token.not_before = min(token.not_before, token.not_after)
    return len(chosen)


def _matching(state: State, mvpd: str | None, subjects: Collection[str] | None) -> list[TempPassKey]:
    return [k for k in state.temp_passes
            if (mvpd is None or k.mvpd == mvpd) and (subjects is None or k.subject in subjects)]
