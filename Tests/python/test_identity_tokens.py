# SPDX-License-Identifier: Apache-2.0
"""The host's single sign-on tokens through the C API (ae_set_identity_token, since 1.2): a
platform identity (Adobe-Subject-Token) and a service token (AD-Service-Token) go with exactly the
calls Adobe's OpenAPI file lists them on (V2) or every call (V1, platform identity only), never with
DCR; a token that is not a well-formed compact JWS/JWE, unsigned, expired or oversized is refused
before anything is sent, and one that expires later is no longer sent. The SDK does not verify
signatures (Adobe does, with the issuer's key): these tokens carry placeholder signatures.
docs/PLATFORM-SSO.md."""
import base64
import hashlib
import json
import time

import pytest
from conftest import login
from harness import ae

both_apis = pytest.mark.parametrize("api", ["v2", "v1"], indirect=True)

# The V2 operations Adobe's OpenAPI file lists both SSO headers on.
V2_SSO_OPERATIONS = {"createSessionUsingPOST", "getProfilesUsingGET_1", "getProfileForMvpdUsingGET",
                     "retrieveAuthorizeDecisionsForMvpdUsingPOST", "retrievePreAuthorizeDecisionsForMvpdUsingPOST_1",
                     "getLogoutForMvpdUsingGET"}
DCR_OPERATIONS = {"processSoftwareStatementUsingPOST", "generateAccessTokenUsingPOST"}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jws(claims=None, alg="RS256", header=None, signature=b"\x01" * 64, **extra):
    """A compact JWS with `claims` (default: a valid service token's, an hour long)."""
    now = int(time.time())
    body = {"iss": "https://id.operator.example", "sub": "subscriber-42", "aud": "Adobe", "iat": now,
            "exp": now + 3600} if claims is None else claims
    body.update(extra)
    head = {"alg": alg, "typ": "JWT"} if header is None else header
    return ".".join([b64url(json.dumps(head).encode()), b64url(json.dumps(body).encode()), b64url(signature)])


def jwe():
    """A compact JWE's shape: its claims are encrypted for Adobe (the SDK reads only the header)."""
    head = {"alg": "RSA-OAEP-256", "enc": "A256GCM", "kid": "platform-1"}
    return ".".join([b64url(json.dumps(head).encode()), b64url(b"k" * 256), b64url(b"i" * 12), b64url(b"c" * 80),
                     b64url(b"t" * 16)])


def sso_headers(entry):
    """The SSO headers a logged request carried, as the tokens they held: the emulator's log never holds
    a token's text (it writes `redacted:sha256:<12 hex>`), so `seen` maps those back."""
    return {name: entry["headers"].get(name) for name in ("Adobe-Subject-Token", "AD-Service-Token")
            if entry["headers"].get(name) is not None}


def seen(token):
    """How the emulator's log shows `token`."""
    return "redacted:sha256:" + hashlib.sha256(token.encode()).hexdigest()[:12]


def full_session(client, recorder, emulator):
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    login(client, recorder, emulator)
    client.get_authorization("LIVE")
    assert recorder.wait("set_token")[1] == "LIVE"
    client.check_preauthorized_resources(["LIVE", "NEWS"], False)
    recorder.wait("preauthorized_resources")
    client.logout()
    recorder.wait("set_authentication_status", lambda status, code: status == 0)


@both_apis
def test_the_tokens_go_with_exactly_the_calls_adobe_lists(make_client, recorder, emulator, api):
    client = make_client()
    platform, service = jws(sub="platform-subject-1"), jws()
    client.set_identity_token(ae.AE_IDENTITY_TOKEN_PLATFORM, platform)
    client.set_identity_token(ae.AE_IDENTITY_TOKEN_SERVICE, service)
    full_session(client, recorder, emulator)
    log = emulator.log()
    assert {e["operation"] for e in log} >= DCR_OPERATIONS
    for entry in log:
        carried = sso_headers(entry)
        if entry["operation"] in DCR_OPERATIONS:
            assert carried == {}, entry["operation"]  # never to DCR
        elif api == "v2":
            expected = ({"Adobe-Subject-Token": seen(platform), "AD-Service-Token": seen(service)}
                        if entry["operation"] in V2_SSO_OPERATIONS else {})
            assert carried == expected, entry["operation"]
        else:  # V1: the platform identity on every call, no service token (V1 has none)
            assert carried == {"Adobe-Subject-Token": seen(platform)}, entry["operation"]
    if api == "v2":  # (profiles/{mvpd} is TempPass's and the partner flow's: not in this session)
        assert {e["operation"] for e in log if sso_headers(e)} == V2_SSO_OPERATIONS - {"getProfileForMvpdUsingGET"}


def test_a_jwe_platform_token_is_sent_as_it_is_and_clearing_stops_it(make_client, recorder, emulator):
    client = make_client()
    token = jwe()
    client.set_identity_token(ae.AE_IDENTITY_TOKEN_PLATFORM, token)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    profiles = [e for e in emulator.log() if e["operation"] == "getProfilesUsingGET_1"]
    assert sso_headers(profiles[-1]) == {"Adobe-Subject-Token": seen(token)}
    client.set_identity_token(ae.AE_IDENTITY_TOKEN_PLATFORM, None)
    emulator.clear_log()
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    client.set_selected_provider("Cablevision")
    recorder.wait("status", lambda s: s["errorId"] == "REGCODE")
    assert all(sso_headers(e) == {} for e in emulator.log())


NOW = int(time.time())
REFUSED = {
    "empty": ("", "empty"),
    "alg none": (jws(alg="none", signature=b""), 'alg "none"'),
    "alg none with a signature": (jws(alg="none"), 'alg "none"'),
    "HS256 service token": (jws(alg="HS256"), 'alg "HS256"'),
    "no alg": (jws(header={"typ": "JWT"}), "no alg"),
    "header not JSON": (b64url(b"{not json") + "." + jws().split(".", 1)[1], "header"),
    "four parts": (jws() + ".x", "4 part"),
    "two parts": (".".join(jws().split(".")[:2]), "2 part"),
    "empty signature": (jws(signature=b""), "empty signature"),
    "no exp": (jws(claims={"iss": "i", "sub": "s", "aud": "Adobe", "iat": NOW}), "exp"),
    "exp as a string": (jws(exp=str(NOW + 3600)), "exp"),
    "exp in the past": (jws(exp=NOW - 10), "expired"),
    "exp two years away": (jws(exp=NOW + 2 * 366 * 86400), "year"),
    "exp beyond any date": (jws(exp=10 ** 30), "exp"),
    "iat in the future": (jws(iat=NOW + 3600), "future"),
    "aud not Adobe": (jws(aud="Someone"), "aud"),
    "no sub": (jws(claims={"iss": "i", "aud": "Adobe", "iat": NOW, "exp": NOW + 3600}), "sub"),
    "huge sub": (jws(sub="x" * 5000), "sub"),
    "CR LF inside": (jws()[:20] + "\r\nX-Evil: 1" + jws()[20:], "character"),
    "space inside": (jws()[:20] + " " + jws()[20:], "character"),
    "non-ASCII": (jws()[:20] + "é" + jws()[20:], "character"),
    "over 16 KiB": (jws(pad="p" * 17000), "bytes"),
    "JWE as a service token": (jwe(), "5 part"),
}


@pytest.mark.parametrize("token,why", REFUSED.values(), ids=REFUSED.keys())
def test_a_bad_service_token_is_refused_before_sending_and_the_previous_one_stays(
        make_client, recorder, emulator, token, why):
    client = make_client()
    good = jws()
    client.set_identity_token(ae.AE_IDENTITY_TOKEN_SERVICE, good)
    with pytest.raises(ae.AEError) as refused:
        client.set_identity_token(ae.AE_IDENTITY_TOKEN_SERVICE, token)
    assert refused.value.status == ae.AE_E_INVALID_ARG
    assert "AD-Service-Token refused" in refused.value.message and why in refused.value.message, refused.value.message
    assert token[:40] not in refused.value.message or len(token) < 8  # the token text is not echoed
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    profiles = [e for e in emulator.log() if e["operation"] == "getProfilesUsingGET_1"]
    assert sso_headers(profiles[-1]) == {"AD-Service-Token": seen(good)}


def test_a_platform_token_may_be_es256_or_jwe_but_never_unsigned(make_client):
    client = make_client()
    client.set_identity_token(ae.AE_IDENTITY_TOKEN_PLATFORM, jws(claims={"sub": "s", "exp": NOW + 600}, alg="ES256"))
    client.set_identity_token(ae.AE_IDENTITY_TOKEN_PLATFORM, jwe())
    for bad in (jws(alg="none", signature=b""), jws(alg="HS256")):
        with pytest.raises(ae.AEError) as refused:
            client.set_identity_token(ae.AE_IDENTITY_TOKEN_PLATFORM, bad)
        assert "Adobe-Subject-Token refused" in refused.value.message


def test_an_unknown_kind_is_refused(make_client):
    client = make_client()
    for kind in (0, 3, -1, 2 ** 31 - 1):
        with pytest.raises(ae.AEError) as refused:
            client.set_identity_token(kind, jws())
        assert refused.value.status == ae.AE_E_INVALID_ARG


def test_a_token_that_expires_is_no_longer_sent(make_client, recorder, emulator):
    client = make_client()
    client.set_identity_token(ae.AE_IDENTITY_TOKEN_SERVICE, jws(exp=int(time.time()) + 2))
    time.sleep(2.2)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    assert all(sso_headers(e) == {} for e in emulator.log())


def test_the_token_text_never_reaches_the_log(make_client, recorder, emulator):
    lines = []
    client = make_client(log_level=ae.AE_LOG_DEBUG, log=lambda level, message: lines.append(message))
    token = jws()
    client.set_identity_token(ae.AE_IDENTITY_TOKEN_SERVICE, token)
    full_session(client, recorder, emulator)
    text = "\n".join(lines)
    assert "AD-Service-Token: set (sha256 " in text
    for part in token.split("."):
        assert part not in text


# --- the pull form: ae_identity_provider (ae_config version 6) ------------------------------------

class Provider:
    """Answers each request from `script` (kind → token, None, or "never": no reply), recording them."""

    def __init__(self, script, kinds=(ae.AE_IDENTITY_TOKEN_PLATFORM, ae.AE_IDENTITY_TOKEN_SERVICE), timeout_ms=0):
        self.script, self.kinds, self.timeout_ms = script, set(kinds), timeout_ms
        self.requests, self.cancelled, self.replies = [], [], []

    def request_token(self, kind, reason, request):
        self.requests.append((kind, reason))
        token = self.script.get(kind)
        if token != "never":
            self.replies.append(request.reply(token))

    def cancel_request(self, handle):
        self.cancelled.append(handle)


def test_setrequestor_asks_the_provider_first_and_the_profiles_call_carries_its_tokens(make_client, recorder,
                                                                                      emulator):
    platform, service = jws(sub="p-1"), jws()
    provider = Provider({ae.AE_IDENTITY_TOKEN_PLATFORM: platform, ae.AE_IDENTITY_TOKEN_SERVICE: service})
    client = make_client(identity_provider=provider)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    assert sorted(provider.requests) == [(ae.AE_IDENTITY_TOKEN_PLATFORM, ae.AE_IDENTITY_REASON_NEEDED),
                                         (ae.AE_IDENTITY_TOKEN_SERVICE, ae.AE_IDENTITY_REASON_NEEDED)]
    assert provider.replies == [ae.AE_OK, ae.AE_OK]
    profiles = [e for e in emulator.log() if e["operation"] == "getProfilesUsingGET_1"]
    assert sso_headers(profiles[-1]) == {"Adobe-Subject-Token": seen(platform), "AD-Service-Token": seen(service)}
    # Held and valid: a second setRequestor asks nothing.
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete", count=2) == (1,)
    assert len(provider.requests) == 2


def test_a_provider_that_never_answers_delays_setrequestor_by_its_timeout_only(make_client, recorder, emulator):
    provider = Provider({ae.AE_IDENTITY_TOKEN_SERVICE: "never"}, kinds=[ae.AE_IDENTITY_TOKEN_SERVICE], timeout_ms=300)
    client = make_client(identity_provider=provider)
    started = time.monotonic()
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    assert time.monotonic() - started < 5
    assert len(provider.cancelled) == 1  # told that the SDK stopped waiting
    assert all(sso_headers(e) == {} for e in emulator.log())


def test_a_bad_token_from_the_provider_is_not_used_and_the_host_is_told(make_client, recorder, emulator):
    provider = Provider({ae.AE_IDENTITY_TOKEN_SERVICE: jws(alg="none", signature=b"")},
                        kinds=[ae.AE_IDENTITY_TOKEN_SERVICE])
    client = make_client(identity_provider=provider)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    status = recorder.find_status("SSO400")
    assert status is not None and status["details"] == "sdk_check" and 'alg "none"' in status["message"], status
    assert all(sso_headers(e) == {} for e in emulator.log())


def test_a_reply_after_the_request_ended_is_an_invalid_handle(make_client, recorder):
    held = []

    class Late(Provider):
        def request_token(self, kind, reason, request):
            held.append(request)

    client = make_client(identity_provider=Late({}, kinds=[ae.AE_IDENTITY_TOKEN_SERVICE], timeout_ms=200))
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    assert held and held[0].reply(jws()) == ae.AE_E_INVALID_HANDLE
    assert ae.lib.ae_identity_request_reply(None, None) == ae.AE_E_INVALID_HANDLE


def test_a_token_near_its_exp_is_asked_for_again_before_a_call(make_client, recorder, emulator):
    soon, fresh = jws(exp=int(time.time()) + 30), jws()
    answers = iter([soon, fresh])
    provider = Provider({}, kinds=[ae.AE_IDENTITY_TOKEN_SERVICE])
    provider.script = type("Next", (), {"get": lambda self, kind: next(answers)})()
    client = make_client(identity_provider=provider)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    client.check_authentication()  # any call: the token expires within a minute → asked in the background
    recorder.wait("set_authentication_status")
    deadline = time.monotonic() + 5
    while len(provider.requests) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert provider.requests == [(ae.AE_IDENTITY_TOKEN_SERVICE, ae.AE_IDENTITY_REASON_NEEDED),
                                 (ae.AE_IDENTITY_TOKEN_SERVICE, ae.AE_IDENTITY_REASON_EXPIRING)]
    time.sleep(0.1)
    emulator.clear_log()
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    client.set_selected_provider("Cablevision")
    recorder.wait("status", lambda s: s["errorId"] == "REGCODE")
    sessions = [e for e in emulator.log() if e["operation"] == "createSessionUsingPOST"]
    assert sso_headers(sessions[-1]) == {"AD-Service-Token": seen(fresh)}


def test_after_adobe_refuses_a_token_the_provider_is_asked_again_and_its_fresh_token_is_used(make_client, recorder,
                                                                                              emulator):
    refused, fresh = jws(sub="refused"), jws(sub="fresh")
    answers = iter([refused, fresh])
    provider = Provider({}, kinds=[ae.AE_IDENTITY_TOKEN_SERVICE])
    provider.script = type("Next", (), {"get": lambda self, kind: next(answers)})()
    emulator.control("POST", "sso/refuse-next", {"header": "AD-Service-Token", "code": "invalid_header_service_token"})
    client = make_client(identity_provider=provider)
    client.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    assert recorder.find_status("SSO400")["details"] == "invalid_header_service_token"
    deadline = time.monotonic() + 5
    while len(provider.replies) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert provider.requests == [(ae.AE_IDENTITY_TOKEN_SERVICE, ae.AE_IDENTITY_REASON_NEEDED),
                                 (ae.AE_IDENTITY_TOKEN_SERVICE, ae.AE_IDENTITY_REASON_REFUSED)]
    assert provider.replies == [ae.AE_OK, ae.AE_OK]
    profiles = [e for e in emulator.log() if e["operation"] == "getProfilesUsingGET_1"]
    # The same call again without the refused token (the fresh one may already be there).
    assert len(profiles) == 2 and sso_headers(profiles[0]) == {"AD-Service-Token": seen(refused)}
    assert sso_headers(profiles[1]) in ({}, {"AD-Service-Token": seen(fresh)})
    time.sleep(0.1)
    emulator.clear_log()
    client.get_authentication()
    recorder.wait("display_provider_dialog")
    client.set_selected_provider("Cablevision")
    recorder.wait("status", lambda s: s["errorId"] == "REGCODE")
    sessions = [e for e in emulator.log() if e["operation"] == "createSessionUsingPOST"]
    assert sso_headers(sessions[-1]) == {"AD-Service-Token": seen(fresh)}


def test_destroying_the_client_cancels_a_pending_request(make_client, recorder):
    held = []

    class Holding(Provider):
        def request_token(self, kind, reason, request):
            self.requests.append((kind, reason))
            held.append(request)

    provider = Holding({}, kinds=[ae.AE_IDENTITY_TOKEN_PLATFORM], timeout_ms=60_000)
    lines = []
    client = make_client(identity_provider=provider, log_level=ae.AE_LOG_DEBUG, log=lambda level, line: lines.append(line))
    client.set_requestor("REF30")  # waits for the provider (a minute at most)
    deadline = time.monotonic() + 5
    while not held and time.monotonic() < deadline:
        time.sleep(0.02)
    assert held and provider.cancelled == []
    client.close()
    logged = len(lines)
    assert provider.cancelled == [held[0].handle]  # before ae_client_destroy returned
    # No callback after destroy, the log sink included (the cancelled wait still winds down inside).
    time.sleep(0.3)
    assert len(lines) == logged, lines[logged:]
    assert held[0].reply(jws()) == ae.AE_E_INVALID_HANDLE
    recorder.settle()
    assert "set_requestor_complete" not in recorder.names()


def test_a_long_alg_with_a_newline_is_quoted_bounded_and_without_control_characters(make_client, recorder):
    alg = "RS256\nX-Injected: 1\r\u0085" + "x" * 500
    token = jws(alg=alg)
    client = make_client()
    with pytest.raises(ae.AEError) as refused:
        client.set_identity_token(ae.AE_IDENTITY_TOKEN_SERVICE, token)
    message = refused.value.message
    assert 'alg "RS256X-Injected: 1' + "x" * 14 + '…" is not allowed' in message, message
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in message) and len(message) < 200
    # The same token from a provider: the SSO400 status and the log line quote it the same way.
    lines = []
    provider = Provider({ae.AE_IDENTITY_TOKEN_SERVICE: token}, kinds=[ae.AE_IDENTITY_TOKEN_SERVICE])
    other = make_client(identity_provider=provider, log_level=ae.AE_LOG_DEBUG,
                        log=lambda level, line: lines.append(line))
    other.set_requestor("REF30")
    assert recorder.wait("set_requestor_complete") == (1,)
    status = recorder.find_status("SSO400")
    assert status["details"] == "sdk_check" and 'RS256X-Injected: 1' in status["message"], status
    said = [line for line in lines if "not used" in line] + [status["message"]]
    for text in said:
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in text) and len(text) < 300, repr(text)
