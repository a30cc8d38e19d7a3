#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpora of Fuzz/Corpus/<target>/ from the repository's own samples.

    python3 Fuzz/make-seeds.py        # rewrites Fuzz/Corpus (the files are committed)

* server-answer: every answer of Emulator/examples/v2-doc-examples.json (Adobe's documented
  answers), for the operation that receives it, Adobe's REST API V1 samples and legacy errors (JSON
  and XML), plus the token store's own JSON forms;
* headers: Content-Type and Retry-After variants with the statuses and bodies that read them;
* saml: the simulated platform's SAML request and (messy) response, from
  Python/accessenabler/simulated_saml.py, raw and Base64;
* host-json: what a host passes to setOptions, getMetadata, preauthorize, ... and ae_config fields;
* flow-answers: call sequences through both API generations (second screen, browser, partner SSO),
  the answer shape of each of Adobe's documented exchanges, and each endpoint's number fields at
  their extremes (9.3e15, 2^63 - 1, -2^63, 1e300, "9223372036854775808", ...);
* c-boundary: the C calls with control characters, dot segments and invalid UTF-8 in their
  strings, host replies with body lengths at their limits, partner replies with extremes, and the
  whole flow re-entrant (callbacks, the log sink and partner requests calling back into the SDK);
* c-boundary, single sign-on: every token of the dictionary through ae_set_identity_token,
  the identity provider answering at once, later or never (held requests answered from several
  threads, still pending at destroy), bogus replies;
* struct-versions: each versioned struct at every version, 0, the next one and UInt32's extremes;
* identity-token: raw token texts (Adobe's documented example, broken shapes) and structured tokens
  with each header and claim selector at each of its values, every shape and damage, both kinds.
* json: the JSON layer against Foundation's decoder: Adobe's documented answers (V2, V1) and texts at
  the edges (depth, numbers beyond 64 bits, escapes, invalid UTF-8, duplicate keys).

The input formats are those of Sources/AccessEnablerFuzz (the first bytes select; see each
function's documentation). Keep these files small: libFuzzer starts from them and mutates.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Fuzz" / "Corpus"

# Must match Sources/AccessEnablerFuzz/ServerAnswer.swift.
OPERATIONS = {
    "configuration.get": 0, "profiles.list": 1, "profiles.by_mvpd": 2, "profiles.by_code": 3,
    "sessions.create": 4, "sessions.resume": 5, "sessions.retrieve": 6, "decisions.authorize": 7,
    "decisions.preauthorize": 8, "partner_sso.authentication_request": 9, "partner_sso.profile": 10,
    "logout.initiate": 11, "dcr.register": 12, "dcr.token": 13,
}
# REST API V1 (operation 16 + the order of V1Operation in Sources/AccessEnabler/Adobe/V1/V1Errors.swift).
V1_OPERATIONS = ["config", "regcode", "tokens/authn", "authenticate/freepreview", "authorize", "tokens/media",
                 "preauthorize", "tokens/usermetadata", "logout", "profile-requests", "tokens/authn (exchange)"]
STATUSES = [200, 201, 200, 204, 400, 401, 403, 404, 410, 412, 429, 500, 503, 302, 0, 599]
CONTENT_TYPES = [
    "application/json;charset=UTF-8", "application/json", "application/problem+json", "text/html",
    "application/xml", None, "", "Application/JSON ; charset=utf-8", " application/vnd.adobe+json\t", "json",
]
# Must match Sources/AccessEnablerFuzz/Headers.swift.
HEADER_STATUSES = [429, 503, 500, 400, 401, 200, 429, 403, 99, 600]
HEADER_BODIES = ["retry", "retry-after", "none", "dcr", "session", "empty", "html"]


def write(target: str, name: str, data: bytes) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def status_index(status: int) -> int:
    return STATUSES.index(status) if status in STATUSES else STATUSES.index(500 if status >= 500 else 400)


def content_type_index(value: str | None) -> int:
    if value is None:
        return CONTENT_TYPES.index(None)
    for index, known in enumerate(CONTENT_TYPES):
        if known is not None and known.lower() == value.lower():
            return index
    return CONTENT_TYPES.index("application/xml") if "xml" in value else 0


def server_answer() -> None:
    examples = json.loads((ROOT / "Emulator/examples/v2-doc-examples.json").read_text())
    for example in examples:
        body = example.get("response_body")
        if body is None:
            continue
        status = int(example.get("status") or 200)
        content_type = (example.get("response_headers") or {}).get("Content-Type")
        endpoint = example["endpoint"]
        operations = [OPERATIONS[endpoint]] if endpoint in OPERATIONS else [14, 0, 7]
        for operation in operations:
            header = bytes([operation, status_index(status), content_type_index(content_type)])
            name = f"{example['id'].replace(':', '-')}-op{operation}"
            write("server-answer", name, header + body.encode("utf-8"))
            repaired = example.get("response_json_repaired")
            if repaired is not None:
                write("server-answer", name + "-repaired", header + json.dumps(repaired).encode("utf-8"))
    # The token store's JSON (operation 15): a Profile and a RequestorConfiguration as saved.
    profile = {"mvpd": "Cablevision", "notBefore": 1, "notAfter": 4102444800000, "issuer": "Cablevision",
               "type": "regular", "attributes": {"userID": {"value": "u1", "state": "plain"},
                                                 "zip": {"value": [1, 2.5, "x"], "state": "enc"}}}
    configuration = {"requestorID": "REF30", "name": "Reference", "domains": ["adobe.com"],
                     "mvpds": [{"ID": "Cablevision", "displayName": "Optimum", "logoURL": "https://l/c.png",
                                "isTempPass": False, "isProxy": False, "enablePlatformServices": True,
                                "displayInPlatformPicker": True, "platformMappingId": "Optimum",
                                "boardingStatus": "SUPPORTED", "requiredMetadataFields": ["uid"]}]}
    for name, value in [("stored-profile", profile), ("stored-configuration", configuration)]:
        write("server-answer", name, bytes([15, 0, 0]) + json.dumps(value).encode("utf-8"))
    # Enhanced errors whose action asks for a retry (the executor waits, then gives up).
    for action in ["retry", "retry-after", "none", "authentication", "application-registration"]:
        body = {"status": 503, "code": "temporarily_unavailable", "action": action, "message": "m"}
        write("server-answer", f"enhanced-{action}", bytes([0, STATUSES.index(503), 0]) + json.dumps(body).encode())


# Adobe's V1 samples (rest-api-v1.md §5: REGCODE, TAUTHN, AUTHZ, MEDIA, PRE, UMD) and its legacy
# error bodies, JSON and XML: (name, operation, status, content type, body).
V1_SAMPLES = [
    ("config", "config", 200, "application/json", json.dumps({"requestor": {"id": "REF30", "name": "R", "domains": [
        "adobe.com"], "mvpds": [{"id": "ATT", "displayName": "AT&T", "enablePlatformServices": True,
                                 "boardingStatus": "SUPPORTED", "platformMappingId": "ATT",
                                 "requiredMetadataFields": ["userID"]}, {"id": "TempPass", "isTempPass": True}]}})),
    ("config-400-xml", "config", 400, "application/xml",
     "<error><status>400</status><message>Bad Request</message></error>"),
    ("regcode", "regcode", 201, "application/json", json.dumps({
        "id": "ef5a79e8", "code": "IYQD5JQ", "requestor": "sampleRequestorId", "mvpd": "sampleMvpdId",
        "generated": 1704963921144, "expires": 1704965721144, "info": {"deviceId": "c28tZGV2aWQtMDAz"}})),
    ("regcode-400", "regcode", 400, "application/json",
     json.dumps({"status": 400, "message": "Required 'deviceId' is not present"})),
    ("authn", "tokens/authn", 200, "application/json", json.dumps(
        {"requestor": "sampleRequestor", "mvpd": "sampleMvpdId", "userId": "sampleUserId", "expires": "1601114932000"})),
    ("authn-404", "tokens/authn", 404, "application/json", json.dumps({"status": 404, "message": "Not Found"})),
    ("authn-410-xml", "tokens/authn", 410, "application/xml",
     '<?xml version="1.0"?><error><status>410</status><message>Gone</message></error>'),
    ("authorize", "authorize", 200, "application/json", json.dumps({
        "mvpd": "sampleMvpdId", "resource": "sampleResourceId", "requestor": "sampleRequestorId",
        "expires": "1348148289000"})),
    ("authorize-403-xml", "authorize", 403, "application/xml",
     '<error><status>403</status><message>User not authorized</message><details>Your subscription package '
     'does not include the &quot;ASFAFD&quot; channel.</details></error>'),
    ("authorize-eec", "authorize", 403, "application/json", json.dumps({
        "action": "retry", "status": 403, "code": "network_connection_timeout", "message": "m", "trace": "t"})),
    ("media", "tokens/media", 200, "application/json", json.dumps({
        "resource": "sampleResourceId", "requestor": "sampleRequestorId", "expires": "1348649614000",
        "serializedToken": "PHNpZ25hdH[...]", "userId": "sampleScrambledUserId", "mvpdId": "sampleMvpdId"})),
    ("media-403", "tokens/media", 403, "application/json",
     json.dumps({"status": 403, "message": "Authentication token expired", "details": None})),
    ("preauthorize", "preauthorize", 200, "application/json", json.dumps({"resources": [
        {"id": "TestStream1", "authorized": True},
        {"id": "TestStream3", "authorized": False, "error": {"status": 403, "code": "authorization_denied_by_mvpd",
                                                             "message": "User not authorized", "action": "none"}}]})),
    ("preauthorize-412", "preauthorize", 412, "application/json",
     json.dumps({"status": 412, "message": "User not authenticated", "details": None})),
    ("usermetadata", "tokens/usermetadata", 200, "application/json", json.dumps({
        "updated": 1334243471, "encrypted": ["encryptedProp"], "data": {
            "zip": ["12345", "34567"], "maxRating": {"MPAA": "PG-13", "VCHIP": "TV-Y"}, "householdID": "3456",
            "userID": "BgSdasfsdk23/dsaf3+saASesadgfsShggssd=", "channelID": ["channel-1"], "tokenSource": "Apple"}})),
    ("freepreview-400", "authenticate/freepreview", 400, "application/json",
     json.dumps({"status": 400, "message": "Bad Request", "details": "expired"})),
    ("logout-401", "logout", 401, "application/json", json.dumps({"error": "access_denied"})),
    ("profile-request", "profile-requests", 200, "application/octet-stream",
     base64.b64encode(b'<samlp:AttributeQuery ID="_req42"/>').decode()),
    ("exchange-403", "tokens/authn (exchange)", 403, "application/json", json.dumps({"error": "invalid_client"})),
]


def server_answer_v1() -> None:
    for name, operation, status, content_type, body in V1_SAMPLES:
        header = bytes([16 + V1_OPERATIONS.index(operation), status_index(status), content_type_index(content_type)])
        write("server-answer", f"v1-{name}", header + body.encode("utf-8"))


def headers() -> None:
    samples = {
        "429-retry-after-5": (429, "none", "Content-Type: application/json\nRetry-After: 5"),
        "429-retry-after-spaces": (429, "empty", "Retry-After:  10 \t"),
        "429-retry-after-negative": (429, "empty", "Retry-After: -1"),
        "429-retry-after-huge": (429, "empty", "Retry-After: 99999999999999999999999"),
        "429-retry-after-date": (429, "empty", "Retry-After: Wed, 21 Oct 2015 07:28:00 GMT"),
        "503-retry-action": (503, "retry", "content-type: application/json;charset=UTF-8\nRetry-After: 0"),
        "503-retry-after-action": (503, "retry-after", "Content-Type: application/problem+json\nretry-after: 2"),
        "400-enhanced": (400, "none", "Content-Type: application/json; charset=utf-8"),
        "400-dcr": (400, "dcr", "Content-Type: APPLICATION/JSON"),
        "200-session": (200, "session", "Content-Type: application/json\nContent-Type: text/html"),
        "200-session-last-wins": (200, "session", "Content-Type: text/html\nContent-Type: application/json"),
        "200-html": (200, "html", "Content-Type: text/html;charset=UTF-8\nX-Trace: abc"),
        "200-params-only": (200, "session", "Content-Type: ;charset=utf-8"),
        "200-no-colon": (200, "session", "HTTP/1.1 200 OK\nContent-Type: application/json\nbroken line"),
        "401-cr-only": (401, "none", "Content-Type: application/json\r\nRetry-After: 1\r"),
        "status-99": (99, "empty", "Content-Type: application/json"),
    }
    for name, (status, body, block) in samples.items():
        # One header line per NUL byte; lines keep the CRLF they have on the wire.
        lines = b"\x00".join(line.encode() + (b"" if line.endswith("\r") else b"\r\n") for line in block.split("\n"))
        write("headers", name, bytes([HEADER_STATUSES.index(status), HEADER_BODIES.index(body)]) + lines)


def load_simulated_saml():
    path = ROOT / "Python/accessenabler/simulated_saml.py"
    spec = importlib.util.spec_from_file_location("simulated_saml", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def saml() -> None:
    sim = load_simulated_saml()
    request = sim.saml_request("_req42", "REF30", "Cablevision", "https://saml.sp.auth.adobe.com")
    response = sim.saml_response("_req42", "Cablevision", ["uid", "zip", "householdID"])
    write("saml", "request.xml", request.encode())
    write("saml", "request.b64", base64.b64encode(request.encode()))
    write("saml", "request-wrapped.b64", base64.encodebytes(request.encode()))  # with line breaks
    write("saml", "response.xml", response.encode())
    write("saml", "response-single-quoted-id", sim.saml_request("a\"b", "REF30", "Cablevision", "i").encode())
    write("saml", "newline-between-blanks", b" <a>\t \n \t<b/> \r\n\x0b </a>\xe2\x80\xa8 ")
    write("saml", "unicode-blanks", "\u00a0<x>\u3000\u2028\u0085y</x>\u2029\u00a0".encode())
    write("saml", "prolog-comment", b"<?xml version='1.0'?><!-- c --><q ID='_id1'/>")
    write("saml", "invalid-utf8", b"<a>\xff\xfe\xc0</a>")


def host_json() -> None:
    calls = {
        "options": {"applicationProfile": "tvos", "visitorID": "v1", "ap_vi": "v2", "handleSVC": True,
                    "device_info": {"model": "TV", "osName": "Linux"}},
        "options-device-info-base64": {"device_info": base64.b64encode(b'{"model":"TV"}').decode()},
        "metadata-authn": {"opCode": 0},
        "metadata-authz": {"opCode": 1, "resource_id": "REF30"},
        "metadata-user": {"opCode": 3, "user_metadata_name": "zip"},
        "metadata-string-opcode": {"opCode": "2"},
        "preauthorize": {"resources": ["REF30", "R2"], "disableFeatures": ["LOCAL_CACHE", "REMOTE_CACHE"]},
        "resources": ["REF30", "R2", "R3"],
        "filter": {"TV_PROVIDERS": ["Cablevision"], "FEATURED_TV_PROVIDERS": []},
        "partner-metadata": {"accountProviderIdentifier": "Cablevision", "authenticationExpirationDate": "2025430636000",
                             "samlAttributeQueryResponse": "<samlp:Response/>"},
        "numbers": [0, -0.0, 1.0, 1e300, -9223372036854775808, 18446744073709551616, 0.1],
        "service-providers": ["https://sp.auth.adobe.com", "http://127.0.0.1:8080", "http://[::1]:9"],
    }
    for name, value in calls.items():
        write("host-json", name, b"\x00" + json.dumps(value).encode())
    write("host-json", "url", b"\x00adobepass://android.app?code=8ER640M&state=x%20y")
    write("host-json", "escapes", b'\x00{"a":"\\u0000\\ud83d\\ude00\\n","b":[null,true,{}]}')
    configs = {
        "config-https": [b"https://sp.auth.adobe.com", b'{"model":"TV","osName":"Linux"}', b"statement"],
        "config-loopback": [b"http://127.0.0.1:9/", b"", b"statement", b"device"],
        "config-localhost": [b"http://localhost:8080", b"{}", b"statement", b"device", b"adobepass://x", b"adobe.com",
                             b"https://activate"],
        "config-ipv6": [b"http://[::1]:9", b"{}", b"s"],
        "config-insecure": [b"http://example.com", b"{}", b"s"],
    }
    for name, fields in configs.items():
        write("host-json", name, b"\x0f" + b"\x00".join(fields))


# ---- flow-answers (Sources/AccessEnablerFuzz/FlowAnswers.swift, FlowModel.swift) ----

# FlowEndpoint order (8 bytes of AnswerSpec each, from byte FLOW_SPECS on).
FLOW_ENDPOINTS = [
    "register", "token", "configuration", "profiles", "profileByMVPD", "profileByCode", "createSession",
    "resumeSession", "retrieveSession", "authorize", "preauthorize", "partnerSession", "partnerProfile", "logout",
    "v1Configuration", "v1RegistrationCode", "v1AuthenticationToken", "v1Authorize", "v1MediaToken",
    "v1Preauthorize", "v1UserMetadata", "v1Logout", "v1FreePreview", "v1ProfileRequest", "v1TokenExchange",
]
FLOW_STEPS, FLOW_SPECS = 7, 7 + 12 * 3
# Calls (FlowAnswersFuzz.perform).
SET_REQUESTOR, CHECK_AUTHN, GET_AUTHN, SELECT, GET_AUTHZ, CHECK_AUTHZ, CHECK_PREAUTH, PREAUTHORIZE, METADATA, \
    LOGOUT, GET_SELECTED = range(11)
# FuzzNumbers.pool, in order (selector = 1 + index); must match FlowModel.swift.
NUMBER_POOL = [
    "0", "-1", "1", "-9223372036854775808", "-9223372036854775807", "9223372036854775807", "9223372036854775806",
    "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296", "9007199254740992",
    "9007199254740993", "-9007199254740993", "9223372036854775", "9223372036854776", "-9223372036854775",
    "-9223372036854776", "9223372036854775.807", "9223372036854775807000", "9.3e15", "-9.3e15", "9300000000000000",
    "1e300", "-1e300", "1.7976931348623157e308", "1e-9", "1e-300", "1.5", "-0", "0.0", "-0.0", "1e19", "1E3",
    "9.2e18", "9.3e18", "-9.3e18", "9.223372036854775807e18", "18446744073709551615", "18446744073709551616",
    "99999999999999999999", "123456789012345678901234567890", '"9223372036854775807"', '"9223372036854775808"',
    '"-9223372036854775808"', '"-9223372036854775809"', '"99999999999999999999"', '"1e19"', '"9.3e15"',
    '"9300000000000000"', '"1.5"', '"-1"', '"0"', '""', '" 42"', '"+42"', '"0x10"', '"abc"', "null", "true", "[]",
    "{}", "[1]", "4102444800000", "253402300799999", "253402300800000", "-62135596800000", "1700000000000",
    "1700000000", "86400", "3600", "60", "now-1", "now", "now+1", "now+60000", "now-86400000", "now+1800000",
    '"now+60000"', '"now-1"',
]
# The extremes every number field gets a seed with.
SEED_NUMBERS = ["9.3e15", "9223372036854775807", "-9223372036854775808", "1e300", '"9223372036854775808"',
                "9007199254740993", "-1", "0", "9223372036854775", "-9223372036854776", "1.5", "now-1"]
# Number fields each endpoint's answer has (AnswerSpec.numbers index), with the variant that shows them.
FLOW_NUMBER_SLOTS = {
    "register": [0], "token": [0, 1], "configuration": [0], "profiles": [0, 1, 2], "profileByMVPD": [0, 1, 2],
    "profileByCode": [0, 1, 2], "createSession": [0, 1], "resumeSession": [0, 1], "retrieveSession": [0, 1],
    "authorize": [0, 1, 2, 3], "preauthorize": [0, 1], "partnerSession": [0, 1], "partnerProfile": [0, 1],
    "logout": [], "v1Configuration": [0], "v1RegistrationCode": [0, 1], "v1AuthenticationToken": [0],
    "v1Authorize": [0], "v1MediaToken": [0], "v1Preauthorize": [], "v1UserMetadata": [0, 1],
}
# Flows that reach each endpoint: (flags, steps).
LOGIN = [(GET_AUTHN, 1, 0x18), (GET_AUTHZ, 0x10, 0x08), (CHECK_PREAUTH, 0x40, 0), (PREAUTHORIZE, 0x41, 0),
         (METADATA, 0x00, 0), (METADATA, 0x11, 0), (METADATA, 0x03, 0), (METADATA, 0x0B, 0), (GET_SELECTED, 0, 0),
         (LOGOUT, 0, 0)]
V1, BROWSER, PARTNER = 1, 2, 4


def flow_input(flags: int, steps, specs: dict[str, bytes] | None = None, partner: bytes = b"") -> bytes:
    head = bytes([flags]) + partner.ljust(6, b"\x00")[:6]
    body = b"".join(bytes(step) for step in steps[:12])
    specs = specs or {}
    if not specs:
        return head + body
    # Unused call slots get a harmless call, so that the answer specs keep their offsets.
    body += bytes([GET_SELECTED, 0, 0]) * (12 - len(steps[:12]))
    table = b"".join(specs.get(name, b"").ljust(8, b"\x00")[:8] for name in FLOW_ENDPOINTS)
    return head + body + table


def number_selector(text: str) -> int:
    return 1 + NUMBER_POOL.index(text)


def spec(kind=0, variant=0, numbers=(0, 0, 0, 0), headers_=0, extra=0) -> bytes:
    return bytes([kind, variant, *numbers, headers_, extra])


def flow_answers() -> None:
    # Whole flows, both API generations, second screen and browser, with and without partner SSO.
    for flags in range(8):
        name = "flow-" + "-".join(x for x, bit in (("v1", V1), ("browser", BROWSER), ("partner", PARTNER)) if flags & bit)
        write("flow-answers", name.rstrip("-") if flags else "flow-v2", flow_input(flags, LOGIN))
    for flags in (0, V1, BROWSER, PARTNER):
        write("flow-answers", f"flow-no-profile-{flags}",
              flow_input(flags, LOGIN, {"profiles": spec(extra=0x20), "v1AuthenticationToken": spec(variant=0)}))
    write("flow-answers", "flow-v2-authorize-first", flow_input(0, [(GET_AUTHZ, 0x10, 0x08), (CHECK_AUTHZ, 0x10, 0)]))
    write("flow-answers", "flow-v2-select-tempPass", flow_input(0, [(SELECT, 1, 0), (CHECK_AUTHN, 0, 0), (GET_AUTHZ, 0, 0)]))
    write("flow-answers", "flow-v1-select-tempPass", flow_input(V1, [(SELECT, 1, 0), (GET_AUTHZ, 0, 0), (LOGOUT, 0, 0)]))
    write("flow-answers", "flow-cancel-dialog", flow_input(0, [(GET_AUTHN, 0, 7), (GET_AUTHN, 1, 0x05)]))
    write("flow-answers", "flow-preauthorize-limit-1", flow_input(0x08, LOGIN))
    # Adobe's documented answers, each where the flow meets it (variant bytes pick the shape).
    documented = {
        "sessions.create-authenticate": ("createSession", spec(variant=0)),
        "sessions.create-authorize": ("createSession", spec(variant=2)),
        "sessions.create-resume": ("createSession", spec(variant=3)),
        "sessions.resume-missing": ("resumeSession", spec(variant=3)),
        "sessions.retrieve": ("retrieveSession", spec(variant=0)),
        "profiles.by_code-pending": ("profileByCode", spec(extra=2)),
        "profiles.temporary": ("profileByMVPD", spec(variant=2 << 2)),
        "profiles.degraded": ("profiles", spec(variant=3 << 2)),
        "profiles.two": ("profiles", spec(variant=3)),
        "decisions.authorize-deny": ("authorize", spec(variant=1)),
        "decisions.authorize-no-token": ("authorize", spec(variant=2)),
        "decisions.authorize-temppass": ("authorize", spec(variant=0x10)),
        "decisions.authorize-degradation": ("authorize", spec(variant=0x20)),
        "decisions.authorize-trailing-space": ("authorize", spec(variant=4)),
        "decisions.preauthorize-mixed": ("preauthorize", spec(variant=0b0100)),
        "logout.partner": ("logout", spec(variant=2)),
        "logout.relative-url": ("logout", spec(variant=8)),
        "configuration.top-level-mvpds": ("configuration", spec(variant=1)),
        "dcr.register-error": ("register", spec(kind=160 + 13)),
        "dcr.token-error": ("token", spec(kind=160 + 16)),
        "profiles.by_mvpd-403-temppass": ("profileByMVPD", spec(kind=160 + 2, variant=3)),
        "profiles.by_code-invalid-code": ("profileByCode", spec(kind=160, variant=6)),
        "error-500-retry": ("profiles", spec(kind=160 + 7, variant=14 + 19 * 5)),
        "error-429-retry-after": ("configuration", spec(kind=160 + 9, headers_=0x06)),
    }
    for name, (endpoint, answer) in documented.items():
        for flags in (0, PARTNER) if endpoint.startswith("partner") else (0,):
            write("flow-answers", f"doc-{name}", flow_input(flags, LOGIN, {endpoint: answer}))
    for name, (endpoint, answer) in {
        "v1-regcode": ("v1RegistrationCode", spec()), "v1-authn-at-sync": ("v1AuthenticationToken", spec(variant=1)),
        "v1-authn-pending": ("v1AuthenticationToken", spec(extra=2)),
        "v1-usermetadata-apple": ("v1UserMetadata", spec(variant=1)),
        "v1-preauthorize-strings": ("v1Preauthorize", spec(variant=0x12)),
        "v1-authorize-denied": ("v1Authorize", spec(kind=160 + 2, variant=0)),
        "v1-media-legacy-403": ("v1MediaToken", spec(kind=160 + 20)),
        "v1-profile-request-empty": ("v1ProfileRequest", spec(variant=1)),
    }.items():
        write("flow-answers", f"doc-{name}", flow_input(V1 | (PARTNER if "profile" in name else 0), LOGIN, {endpoint: answer}))
    # Partner SSO: the platform's answers (expiration date at the extremes too).
    for index, expiration in enumerate(["0", "9223372036854775807", "-9223372036854775808", "1e300", "now-1"]):
        write("flow-answers", f"partner-expiration-{index}",
              flow_input(PARTNER, LOGIN, {"partnerSession": spec()}, partner=bytes([3, 0, 0, number_selector(expiration), 0])))
    for code in range(2, 9):
        write("flow-answers", f"partner-metadata-error-{code}", flow_input(PARTNER, LOGIN, {}, partner=bytes([3, 0, 0, 0, code])))
    # Every number field of every answer at its extremes (the flow that reaches it), and the
    # headers with numbers (Retry-After, Date).
    for endpoint, slots in FLOW_NUMBER_SLOTS.items():
        flags = (V1 if endpoint.startswith("v1") else 0) | (PARTNER if endpoint.startswith("partner") else 0)
        variant = {"v1AuthenticationToken": 1, "profiles": 3}.get(endpoint, 0)
        for slot in slots:
            for text in SEED_NUMBERS:
                numbers = [0, 0, 0, 0]
                numbers[slot] = number_selector(text)
                label = text.replace('"', "s").replace("-", "m").replace("+", "p")
                write("flow-answers", f"num-{endpoint}-{slot}-{label}",
                      flow_input(flags, LOGIN, {endpoint: spec(variant=variant, numbers=numbers)}))
    for nibble in range(1, 16):
        write("flow-answers", f"header-date-{nibble}", flow_input(0, LOGIN, {"configuration": spec(headers_=nibble << 4)}))
        write("flow-answers", f"header-retry-after-{nibble}",
              flow_input(0, LOGIN, {"profiles": spec(kind=160 + 9, headers_=nibble, extra=0x80)}))


# ---- c-boundary (Sources/AccessEnablerFuzz/CBoundary.swift) ----

# CBoundaryFuzz.strings, in order (a selector byte < 0x80 picks one; index 0 is NULL).
C_STRINGS = [
    None, "REF30", "Cablevision", ".", "..", "%2e", "%2E%2E", "/", "./", "a/../b", "..%2f", "", " ", "\t", "a\tb",
    "crlf", "a\nb", "a\rb", "nul", "\x7f", "\x85", "\x9b1m", "\u2028", "invalid-c3", "invalid-ff", "surrogate",
    "overlong", "past-10ffff", "caf\u00e9", "\U0001F600", "long", "TempPass_TEST40", "Dish", "LIVE", "opcode-string",
    "https://fuzz.invalid", "adobepass://android.app", "nul-hidden", "escape", "bom",
]
(C_OPTIONS, C_SET_REQUESTOR, C_CHECK_AUTHN, C_GET_AUTHN, C_SELECT, C_GET_AUTHZ, C_CHECK_AUTHZ, C_CHECK_PREAUTH,
 C_PREAUTHORIZE, C_METADATA, C_LOGOUT, C_EXTERNAL_URL, C_GET_SELECTED, C_BOGUS, C_STORE_STATUS, C_RAW_OPTIONS) = range(16)
# Options keys (CBoundaryFuzz.Calls.perform): visitorID, ap_vi, applicationProfile, device_info (object),
# device_info (string), handleSVC, an unknown key.
C_KEYS = ["visitorID", "ap_vi", "applicationProfile", "device_info-object", "device_info", "handleSVC", "X-Other"]
C_V1, C_PARTNER, C_BROWSER = 1, 2, 4
C_REENTRANT = 0x80  # callbacks, the log sink and partner requests call back into the SDK


def cs(name) -> bytes:
    """A string argument: a dictionary entry by name, or raw bytes (length-prefixed)."""
    if isinstance(name, bytes):
        return bytes([0x80 | len(name)]) + name
    return bytes([C_STRINGS.index(name)])


def c_call(call: int, *args: bytes, plan: int = 0x08) -> bytes:
    return bytes([call, plan]) + b"".join(args)


def c_input(flags=0, quirks=b"", partner=b"", config=b"", calls=()) -> bytes:
    config = config or cs(None) * 6
    return bytes([flags]) + quirks.ljust(16, b"\x00")[:16] + partner.ljust(4, b"\x00")[:4] + config + b"".join(calls)


C_FLOW = [
    c_call(C_SET_REQUESTOR, cs("REF30"), b"\x00"), c_call(C_CHECK_AUTHN), c_call(C_GET_AUTHN, b"\x01", b"\x00", cs(None), b"\x00", cs(None)),
    c_call(C_GET_AUTHZ, cs("LIVE")), c_call(C_CHECK_PREAUTH, b"\x01", cs("LIVE"), cs("REF30")),
    c_call(C_PREAUTHORIZE, b"\x00", cs("LIVE"), b"\x01"), c_call(C_METADATA, b"\x00", cs(None), cs(None)),
    c_call(C_METADATA, b"\x01", cs("LIVE"), cs(None)), c_call(C_METADATA, b"\x03", cs(None), cs(b"zip")),
    c_call(C_GET_SELECTED), c_call(C_LOGOUT),
]


def c_boundary() -> None:
    for flags in range(8):
        name = "-".join(x for x, bit in (("v1", C_V1), ("partner", C_PARTNER), ("browser", C_BROWSER)) if flags & bit)
        write("c-boundary", f"flow-{name or 'v2'}", c_input(flags, calls=C_FLOW))
    # Call 14: the store status, the metrics, then the diagnostics (Sources/AccessEnablerFuzz/CBoundary+Diag.swift), which take
    # the first config string as a store file's bytes, the second as a requestor id, the third as a key.
    sqlite = b"SQLite format 3\x00\x10\x00\x01\x01\x00\x40\x20\x20" + bytes(range(48))
    for label, config in (
        ("none", b""),
        ("sqlite-header", cs(sqlite) + cs("REF30") + cs(b"k" * 32) + cs(None) * 3),
        ("text-short-key", cs("Cablevision") + cs("REF30") + cs(b"short-key") + cs(None) * 3),
        ("null-requestor", cs("REF30") + cs(None) * 5),
    ):
        write("c-boundary", f"diag-{label}", c_input(config=config, calls=[c_call(C_STORE_STATUS)]))
    write("c-boundary", "diag-after-flow", c_input(calls=C_FLOW + [c_call(C_STORE_STATUS)]))
    # Control characters, dot segments and invalid UTF-8 in every options field that reaches a header.
    nasty = ["crlf", "a\nb", "a\rb", "nul", "\t", "\x7f", "\x85", "\x9b1m", "\u2028", "invalid-c3", "escape", "bom"]
    for key_index, key in enumerate(C_KEYS):
        for value in nasty:
            label = C_STRINGS.index(value)
            write("c-boundary", f"options-{key}-{label}",
                  c_input(calls=[c_call(C_OPTIONS, bytes([key_index]), cs(value))] + C_FLOW[:3]))
    write("c-boundary", "options-raw-crlf", c_input(calls=[c_call(C_RAW_OPTIONS, b"\x00", cs(b'{"visitorID":"a\r\nb"}'))] + C_FLOW[:3]))
    for value in [".", "..", "%2e", "%2E%2E", "/", "./", "a/../b", "..%2f", "crlf", "nul", "invalid-ff", "", "long", "bom"]:
        label = C_STRINGS.index(value)
        for flags in (0, C_V1):
            write("c-boundary", f"requestor-{label}-{'v1' if flags else 'v2'}",
                  c_input(flags, calls=[c_call(C_SET_REQUESTOR, cs(value), b"\x00")] + C_FLOW[1:]))
            write("c-boundary", f"select-{label}-{'v1' if flags else 'v2'}",
                  c_input(flags, calls=[C_FLOW[0], c_call(C_SELECT, cs(value)), c_call(C_GET_AUTHZ, cs(value))]))
    # Config strings (device_id, redirect_url, domain_name, activation_url, partner name, model).
    for index, value in enumerate(["crlf", "nul", "invalid-c3", "", ".."]):
        for field in range(6):
            config = b"".join(cs(value) if f == field else cs(None) for f in range(6))
            write("c-boundary", f"config-{field}-{index}", c_input(C_PARTNER, config=config, calls=C_FLOW[:4]))
    # getMetadata: opCode as a string, at int extremes, with and without its argument.
    for code in range(20):
        write("c-boundary", f"metadata-opcode-{code}",
              c_input(calls=[C_FLOW[0], c_call(C_METADATA, bytes([code]), cs("LIVE"), cs(b"zip"))]))
    # Adobe's answers carrying dot segments and odd ids (MVPD ids, codes).
    for variant in range(1, 8):
        for flags in (0, C_V1, C_PARTNER):
            write("c-boundary", f"server-ids-{variant}-{flags}",
                  c_input(flags | variant << 3, calls=C_FLOW[:3] + [c_call(C_SELECT, cs(None)), c_call(C_GET_AUTHN, b"\x01", b"\x00", cs(None), b"\x00", cs(None), plan=0x0B)]))
    # How the host replies: each kind with a few parameters, for every endpoint.
    for kind in range(1, 8):
        for parameter in (0, 1, 2, 3, 5, 6, 7):
            quirk = kind | parameter << 3
            for flags in (0, C_V1):
                write("c-boundary", f"reply-{kind}-{parameter}-{'v1' if flags else 'v2'}", c_input(flags, quirks=bytes([quirk]) * 16, calls=C_FLOW))
    # Partner replies: access status and signed-in ints, errors, metadata with numbers at extremes.
    for access in range(14):
        write("c-boundary", f"partner-access-{access}", c_input(C_PARTNER, partner=bytes([access, 0, 0, 0]), calls=C_FLOW[:4]))
    for error in range(11):
        write("c-boundary", f"partner-error-{error}", c_input(C_PARTNER, partner=bytes([0, 1 | error << 1, 0, 0]), calls=C_FLOW[:4]))
    for provider in range(7):
        for expiration in ("9223372036854775807", "-9223372036854775808", "1e300", '"9223372036854775808"', "9.3e15",
                           "1.5", "null", '"abc"', "now-1"):
            write("c-boundary", f"partner-metadata-{provider}-{NUMBER_POOL.index(expiration)}",
                  c_input(C_PARTNER, partner=bytes([0, 0, provider, 1 + NUMBER_POOL.index(expiration)]), calls=C_FLOW[:4]))
    # Replies to handles that are not pending.
    for selector in range(16):
        write("c-boundary", f"bogus-replies-{selector}",
              c_input(calls=[C_FLOW[0], c_call(C_BOGUS, bytes([selector]), cs("invalid-ff" if selector & 8 else "crlf"))]))
    # Re-entrant: the whole flow with every callback, the log sink and the partner calling back in.
    for flags in range(8):
        name = "-".join(x for x, bit in (("v1", C_V1), ("partner", C_PARTNER), ("browser", C_BROWSER)) if flags & bit)
        write("c-boundary", f"reentrant-flow-{name or 'v2'}", c_input(flags | C_REENTRANT, calls=C_FLOW))
    # Destroy from inside every callback kind (CBoundaryFuzz.Host.Inside), with the host transport: nothing
    # of the host's runs once that destroy returned (issue 28). A call byte 0xE0 | kind arms it; its plan
    # byte picks the occurrence (1 + plan % 4).
    kinds = ["log", "status", "requestor-complete", "authentication-status", "token", "token-failed", "selected",
             "dialog", "navigate", "tracking", "metadata", "preauthorized", "preauthorize-completion", "send",
             "partner", "identity"]
    for kind, name in enumerate(kinds):
        flags = (C_PARTNER if name == "partner" else 0) | (C_BROWSER if name == "navigate" else 0)
        calls = list(C_FLOW)
        if name == "token-failed":  # checkAuthorization before a login: token_request_failed
            calls.insert(1, c_call(C_CHECK_AUTHZ, cs("LIVE")))
        for occurrence in (0, 2):
            write("c-boundary", f"destroy-inside-{name}-{occurrence + 1}",
                  c_input(flags, calls=[c_call(0xE0 | kind, plan=occurrence)] + calls))
    write("c-boundary", "store-status", c_input(calls=[c_call(C_STORE_STATUS), C_FLOW[0], c_call(C_STORE_STATUS)]))
    write("c-boundary", "external-url-no-login", c_input(calls=[C_FLOW[0], c_call(C_EXTERNAL_URL, cs("adobepass://android.app")),
                                                                  c_call(C_CHECK_AUTHN)]))


# ---- c-boundary, single sign-on (Sources/AccessEnablerFuzz/CBoundary+Identity.swift) ----

# Call bytes 0xF0-0xFF (the byte % 16 calls never use them): 0xF0 ae_set_identity_token(kind,
# token), 0xF6 the identity provider's policy and token, 0xF7 a held request answered from 1-4
# threads, 0xF8 replies to handles that are no pending identity request.
C_ID_SET, C_ID_POLICY, C_ID_REPLY_HELD, C_ID_BOGUS = 0xF0, 0xF6, 0xF7, 0xF8
# CBoundaryFuzz.identityTokens, in order (index 0 is NULL); append only.
C_TOKENS = [
    None, "valid-service", "valid-platform", "jwe", "alg-none", "alg-NONE", "alg-newline", "no-alg", "plus",
    "padding", "crlf", "non-ascii", "nul", "over-16k", "under-16k", "exp-past", "exp-year", "exp-nan", "exp-1e300",
    "exp-minus-1", "exp-2^63-1", "exp-minus-2^63", "exp-string", "iat-ahead", "aud-lowercase", "no-aud",
    "sub-2000", "four-parts", "two-parts", "empty", "expiring", "adobe-example", "es256-platform", "hs256-service",
    "dot", "dot-dot", "three-dots", "claims-array",
]
# Kinds (CBoundaryFuzz.Calls.identityCall): AE_IDENTITY_TOKEN_PLATFORM, _SERVICE, then invalid ones.
C_KINDS = [1, 2, 0, 3, -1, 2 ** 31 - 1, -2 ** 31]
# Provider policies: bit 0 NEEDED (0 at once, 1 from the harness), bits 1-2 EXPIRING/REFUSED (0 at once,
# 1 from the harness, 2 held).
NOW, SERVE, HOLD = 0, 1, 2


def ct(name) -> bytes:
    """A token argument: a dictionary entry by name, or raw bytes (length-prefixed)."""
    if isinstance(name, bytes):
        return bytes([0x80 | len(name)]) + name
    return bytes([C_TOKENS.index(name)])


def id_set(kind: int, token) -> bytes:
    return c_call(C_ID_SET, bytes([C_KINDS.index(kind)]), ct(token))


def id_policy(needed: int, later: int, token) -> bytes:
    return c_call(C_ID_POLICY, bytes([needed | later << 1]), ct(token))


def c_boundary_identity() -> None:
    # Every token through ae_set_identity_token, then a flow that sends it (kinds alternating).
    for index, token in enumerate(C_TOKENS):
        kind = 2 if index % 2 else 1
        write("c-boundary", f"identity-set-{index}-{kind}", c_input(calls=[id_set(kind, token)] + C_FLOW[:4]))
    for kind in C_KINDS[2:]:
        write("c-boundary", f"identity-set-kind-{kind}", c_input(calls=[id_set(kind, "valid-service"), C_FLOW[0]]))
    for raw in (b"a.b.c", b"\xff\xfe.x.y", b"e30.e30.\r\n", b"a" * 120):
        write("c-boundary", f"identity-set-raw-{hashlib.sha1(raw).hexdigest()[:8]}",
              c_input(calls=[id_set(1, raw), C_FLOW[0]]))
    # V1: the platform identity on every call, never the service token.
    for token in ("valid-service", "valid-platform", "jwe", "expiring"):
        kind = 2 if token == "valid-service" else 1
        write("c-boundary", f"identity-v1-{token}", c_input(C_V1, calls=[id_set(kind, token)] + C_FLOW))
    # The provider: answered at once, from the harness or held, with good and bad tokens; an
    # expiring token makes every call ask again in the background.
    for needed in (NOW, SERVE):
        for later in (NOW, SERVE, HOLD):
            for token in ("valid-platform", "alg-newline", "expiring", None, b"\xc3(", "over-16k"):
                label = token if isinstance(token, str) else ("none" if token is None else "invalid-utf8")
                write("c-boundary", f"identity-provider-{needed}{later}-{label}",
                      c_input(calls=[id_policy(needed, later, token), id_set(1, "expiring")] + C_FLOW[:4]))
    # Held requests answered from several threads at once, with good, bad and unreadable tokens;
    # then bogus replies; and requests still held at destroy (cancel_request, then stale replies).
    for threads in range(4):
        for token in ("valid-platform", None, "crlf", b"\xff"):
            label = token if isinstance(token, str) else ("none" if token is None else "invalid-utf8")
            write("c-boundary", f"identity-held-{threads + 1}-{label}",
                  c_input(calls=[id_policy(NOW, HOLD, "valid-platform"), id_set(1, "expiring"), C_FLOW[0], C_FLOW[1],
                                 c_call(C_ID_REPLY_HELD, bytes([threads]), ct(token)), C_FLOW[1]]))
    for selector in range(2):
        write("c-boundary", f"identity-bogus-{selector}",
              c_input(calls=[id_policy(NOW, HOLD, None), id_set(2, "expiring"), C_FLOW[0], C_FLOW[1],
                             c_call(C_ID_BOGUS, bytes([selector]))]))
    for flags in (0, C_V1, C_REENTRANT):
        write("c-boundary", f"identity-held-at-destroy-{flags}",
              c_input(flags, calls=[id_policy(NOW, HOLD, "valid-platform"), id_set(1, "expiring"), id_set(2, "expiring"),
                                    C_FLOW[0], C_FLOW[1], C_FLOW[3]]))


# ---- identity-token (Sources/AccessEnablerFuzz/IdentityTokens.swift) ----
# Lengths of FuzzTokens' lists (append only): alg, header extras, exp, iat, aud, iss/sub.
TOKEN_LISTS = {"alg": 18, "header": 8, "exp": 28, "iat": 13, "aud": 14, "subject": 10}


def identity_token() -> None:
    """Raw texts (Adobe's documented example, broken shapes) and structured tokens: each selector's
    every value with the others valid, every shape and damage, for both kinds."""
    example = (b"eyJhbGciOiJSUzI1NiIsImtpZCI6InFhcEVhWTBoWU52cGh5dHdJSTNTYWVfY0FLeUxTN0daT3F0VF9hNGFqZW8ifQ."
               b"eyJzdWIiOiJKYW5lIiwibmFtZSI6IkphbmUgU21pdGgiLCJpYXQiOjE1MTYyMzkwMjIsImlzcyI6ImFkb2JlIiwiZXhwIjoxNzIwMTUy"
               b"ODIwLCJhdWQiOiJhZG9iZSIsImp0aSI6IjNiMmZiMDQwLTMwYTktNDNkNy1iNjQ3LWQwMGFjNDk1YmFiIn0.c2ln")
    for kind in (0, 1):
        for name, text in {"adobe-example": example, "empty": b"", "dot": b".", "dots": b"....", "abc": b"a.b.c",
                           "crlf": b"a.b\r\n.c", "nul": b"a.\x00b.c", "invalid-utf8": b"a.\xff.c",
                           "jwe-shape": b"eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..aXY.Y2lwaGVy.dGFn"}.items():
            write("identity-token", f"raw-{kind}-{name}", bytes([kind]) + text)
        for position, (field, count) in enumerate(TOKEN_LISTS.items()):
            for value in range(count):
                spec = [0] * 7
                spec[position] = value
                write("identity-token", f"{field}-{value}-{kind}", bytes([2 | kind] + spec))
        for shape in range(64):
            write("identity-token", f"shape-{shape}-{kind}", bytes([2 | kind, 0, 0, 0, 0, 0, 0, shape]))
        write("identity-token", f"extra-claim-{kind}", bytes([2 | kind, 0, 0, 0, 0, 0, 0, 0]) + b"\r\n\u0085 \xff")


# ---- struct-versions (Sources/AccessEnablerFuzz/StructVersions.swift) ----
def struct_versions() -> None:
    """Each struct at each version the library knows, 0, the next one and UInt32 extremes, with the
    bytes after it all 0xFF, all 0x00, or text."""
    for kind, name in enumerate(("config", "delegate", "partner", "transport")):
        for version in (0, 1, 2, 3, 4, 5, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF):
            for fill, label in ((b"\xff", "ff"), (b"\x00", "00"), (b"garbage after the struct", "text")):
                write("struct-versions", f"{name}-v{version:x}-{label}", bytes([kind]) + version.to_bytes(4, "little") + fill)
    # ae_config version 6 and the identity provider (1.2).
    for kind, name, versions in ((0, "config", (6, 7)), (4, "identity", (0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF))):
        for version in versions:
            for fill, label in ((b"\xff", "ff"), (b"\x00", "00"), (b"garbage after the struct", "text")):
                write("struct-versions", f"{name}-v{version:x}-{label}", bytes([kind]) + version.to_bytes(4, "little") + fill)


def json_text() -> None:
    """Adobe's documented answer bodies as they are, and the edges of the JSON layer."""
    examples = json.loads((ROOT / "Emulator/examples/v2-doc-examples.json").read_text())
    for example in examples:
        body = example.get("response_body")
        if body and body.lstrip()[:1] in ("{", "["):
            write("json", example["id"].replace(":", "-"), body.encode("utf-8"))
    for name, _, _, content_type, body in V1_SAMPLES:
        if "json" in content_type:
            write("json", "v1-" + name, body.encode("utf-8"))
    edges = {
        "depth-64": b"[" * 64 + b"]" * 64, "depth-65": b"[" * 65 + b"]" * 65,
        "brackets-in-strings": b'["' + b"[{" * 100 + b'"]',
        "int64-edges": b"[9223372036854775807,-9223372036854775808,9223372036854775808,-9223372036854775809]",
        "huge-numbers": b'{"a":123456789012345678901234567890,"b":1e308,"c":1e-320,"d":-0,"e":0.1}',
        "overflowing-real": b"[1e400]", "escapes": b'["\\u0000\\ud83d\\ude00\\n\\/\\"", "\\ud800"]',
        "duplicate-keys": b'{"a":1,"a":[2]}', "invalid-utf8": b'["\xc3\x28", "\xff"]', "bom": b"\xef\xbb\xbf{}",
        "top-level-scalar": b'"text"', "whitespace": b" \t\r\n{ } ", "nan": b"[NaN]", "trailing": b"{}x",
    }
    for name, text in edges.items():
        write("json", name, text)


def main() -> None:
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    server_answer()
    server_answer_v1()
    headers()
    saml()
    host_json()
    flow_answers()
    c_boundary()
    c_boundary_identity()
    struct_versions()
    identity_token()
    json_text()
    for folder in sorted(CORPUS.iterdir()):
        files = list(folder.iterdir())
        size = sum(f.stat().st_size for f in files)
        digest = hashlib.sha256(b"".join(f.read_bytes() for f in sorted(files))).hexdigest()[:12]
        print(f"{folder.name}: {len(files)} files, {size} bytes ({digest})")


if __name__ == "__main__":
    main()
