#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpora of Fuzz/Corpus/<target>/ from the repository's own samples.

    python3 Fuzz/make-seeds.py        # rewrites Fuzz/Corpus (the files are committed)

* server-answer: every answer of Tests/emulator/examples/v2-doc-examples.json (Adobe's documented
  answers), for the operation that receives it, Adobe's REST API V1 samples and legacy errors (JSON
  and XML), plus the token store's own JSON forms;
* headers: Content-Type and Retry-After variants with the statuses and bodies that read them;
* saml: the simulated platform's SAML request and (messy) response, from
  Python/accessenabler/simulated_saml.py, raw and Base64;
* host-json: what a host passes to setOptions, getMetadata, preauthorize, ... and ae_config fields.

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
# REST API V1 (operation 16 + the order of V1Operation in Sources/AccessEnabler/V1/V1Errors.swift).
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
    examples = json.loads((ROOT / "Tests/emulator/examples/v2-doc-examples.json").read_text())
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


def main() -> None:
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    server_answer()
    server_answer_v1()
    headers()
    saml()
    host_json()
    for folder in sorted(CORPUS.iterdir()):
        files = list(folder.iterdir())
        size = sum(f.stat().st_size for f in files)
        digest = hashlib.sha256(b"".join(f.read_bytes() for f in sorted(files))).hexdigest()[:12]
        print(f"{folder.name}: {len(files)} files, {size} bytes ({digest})")


if __name__ == "__main__":
    main()
