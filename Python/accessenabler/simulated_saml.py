# SPDX-License-Identifier: Apache-2.0
"""The simulated platform's SAML: what the emulator sends and what the partner simulator answers.

Standard library only, pure functions, deterministic (no randomness, no clock). This module is
shared by three parties and must not import anything of the `accessenabler` package (importing
the package loads libaccessenabler.so):

* the emulator (Emulator/aepass/partner.py, through Emulator/aepass/simulated.py) loads this file by path
  (importlib.util.spec_from_file_location) to build the SAML request of `/sessions/sso/Apple`
  and to check the `SAMLResponse` of `/profiles/sso/Apple`;
* the partner simulator (partner.py next to this file) answers a metadata request that carries
  a `verificationToken` with `saml_response(...)`, as messy as a real platform returns it;
* tests use `encode_saml_response` to produce the form value an SDK must send.

The clean-up is Adobe's Apple SSO cookbook (REST API V2), in Swift:

    saml.replacingOccurrences(of: "[ \\t]+", with: " ", options: .regularExpression)
        .components(separatedBy: CharacterSet.newlines).joined(separator: "")
        .trimmingCharacters(in: .whitespacesAndNewlines)

then Base64, then percent-encoding of the characters ``!*'();:@&=+$,/?%#[]``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import unicodedata
from xml.sax.saxutils import escape, quoteattr

SAML_PROTOCOL = "urn:oasis:names:tc:SAML:2.0:protocol"
SAML_ASSERTION = "urn:oasis:names:tc:SAML:2.0:assertion"
PLATFORM_ISSUER_PREFIX = "urn:simulated-platform:"
SIMULATED_NAMESPACE = "urn:simulated-platform"
STATUS_SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success"
# Attribute names whose value is the user id; any other attribute N has the value "N-<provider>".
USER_ID_ATTRIBUTES = frozenset({"uid", "NameID", "uniqueId"})
# The cookbook's percent-encoded set (applied once, to the Base64 text).
PERCENT_ENCODED = "!*'();:@&=+$,/?%#[]"

# Foundation's CharacterSet.newlines: U+000A-U+000D, U+0085, U+2028, U+2029.
_NEWLINES = re.compile("[\n\x0b\x0c\r\x85\u2028\u2029]")
_BLANKS = re.compile("[ \t]+")
_ROOT_START_TAG = re.compile(r"<([A-Za-z_][\w.:-]*)((?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*/?>")
_ID_ATTRIBUTE = re.compile(r"(?:^|\s)ID\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_PROLOG = re.compile(r"^\s*(?:<\?.*?\?>\s*|<!--.*?-->\s*)*", re.S)


def user_id(provider_id: str) -> str:
    """The simulated platform's user id of the viewer signed in to `provider_id`."""
    return "sim-" + provider_id.lower()


def attribute_value(name: str, provider_id: str) -> str:
    return user_id(provider_id) if name in USER_ID_ATTRIBUTES else f"{name}-{provider_id}"


def saml_request(request_id: str, service_provider: str, mvpd: str, issuer: str) -> str:
    """The SAML 2.0 attribute query that Adobe hands to the platform (`verificationToken`).

    Deterministic; the emulator sends it Base64-encoded as `authenticationRequest.request`.
    """
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<samlp:AttributeQuery xmlns:samlp="{SAML_PROTOCOL}" xmlns:saml="{SAML_ASSERTION}"'
        f' ID={quoteattr(request_id)} Version="2.0"'
        f" Destination={quoteattr(PLATFORM_ISSUER_PREFIX + mvpd)}>"
        f"<saml:Issuer>{escape(issuer)}</saml:Issuer>"
        f'<samlp:Extensions xmlns:sim="{SIMULATED_NAMESPACE}">'
        f"<sim:ServiceProvider>{escape(service_provider)}</sim:ServiceProvider>"
        f"<sim:Mvpd>{escape(mvpd)}</sim:Mvpd>"
        "</samlp:Extensions>"
        "</samlp:AttributeQuery>"
    )


def request_id_of(saml_request_base64: str) -> str | None:
    """The `ID` attribute of the root element of a Base64 SAML request, or None."""
    if not isinstance(saml_request_base64, str):
        return None
    try:
        raw = base64.b64decode("".join(saml_request_base64.split()), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    text = text[_PROLOG.match(text).end():]
    root = _ROOT_START_TAG.match(text)
    if root is None:
        return None
    found = _ID_ATTRIBUTE.search(root.group(2))
    if found is None:
        return None
    value = found.group(1) if found.group(1) is not None else found.group(2)
    return value or None


def _response_ids(request_id: str, provider_id: str) -> tuple[str, str]:
    digest = hashlib.sha256(f"{request_id}\n{provider_id}".encode("utf-8")).hexdigest()
    return f"_resp{digest[:32]}", f"_assert{digest[32:]}"


def saml_response(request_id: str, provider_id: str, attribute_names: list[str]) -> str:
    """The platform's SAML attribute query response, formatted as messily as real platforms do.

    CRLF line ends with one bare LF (after `</samlp:Status> `, which also ends with a space, so
    that the clean-up must collapse blanks *before* removing newlines), tab indentation, two
    spaces and a space+tab inside start tags, and a trailing newline.
    """
    response_id, assertion_id = _response_ids(request_id, provider_id)
    issuer = escape(PLATFORM_ISSUER_PREFIX + provider_id)
    lines = [
        f'<samlp:Response xmlns:samlp="{SAML_PROTOCOL}" xmlns:saml="{SAML_ASSERTION}"'
        f" ID={quoteattr(response_id)} InResponseTo={quoteattr(request_id)} Version=\"2.0\">\r\n",
        f"\t<saml:Issuer>{issuer}</saml:Issuer>\r\n",
        "\t<samlp:Status>\r\n",
        f'\t\t<samlp:StatusCode Value="{STATUS_SUCCESS}"/>\r\n',
        "\t</samlp:Status> \n",
        f"\t<saml:Assertion  ID={quoteattr(assertion_id)} Version=\"2.0\">\r\n",
        f"\t\t<saml:Issuer>{issuer}</saml:Issuer>\r\n",
        "\t\t<saml:Subject>\r\n",
        f"\t\t\t<saml:NameID>{escape(user_id(provider_id))}</saml:NameID>\r\n",
        "\t\t</saml:Subject>\r\n",
        "\t\t<saml:AttributeStatement>\r\n",
    ]
    for name in attribute_names:
        lines += [
            f"\t\t\t<saml:Attribute  Name={quoteattr(name)} \t>\r\n",
            f"\t\t\t\t<saml:AttributeValue>{escape(attribute_value(name, provider_id))}</saml:AttributeValue>\r\n",
            "\t\t\t</saml:Attribute>\r\n",
        ]
    lines += [
        "\t\t</saml:AttributeStatement>\r\n",
        "\t</saml:Assertion>\r\n",
        "</samlp:Response>\r\n",
    ]
    return "".join(lines)


def _is_foundation_blank(char: str) -> bool:
    """A member of Foundation's CharacterSet.whitespacesAndNewlines (Zs, tab, newlines)."""
    return char == "\t" or bool(_NEWLINES.match(char)) or unicodedata.category(char) == "Zs"


def clean_saml_response(text: str) -> str:
    """The cookbook's clean-up: blanks → one space, then newlines removed, then trimmed."""
    text = _BLANKS.sub(" ", text)
    text = _NEWLINES.sub("", text)
    start, end = 0, len(text)
    while start < end and _is_foundation_blank(text[start]):
        start += 1
    while end > start and _is_foundation_blank(text[end - 1]):
        end -= 1
    return text[start:end]


def percent_encode(text: str) -> str:
    """Percent-encode (uppercase hex) exactly the characters of PERCENT_ENCODED, once."""
    return "".join(f"%{ord(c):02X}" if c in PERCENT_ENCODED else c for c in text)


def encode_saml_response(text: str) -> str:
    """The `SAMLResponse` form value: clean, Base64 (no line breaks), percent-encode."""
    encoded = base64.b64encode(clean_saml_response(text).encode("utf-8")).decode("ascii")
    return percent_encode(encoded)
