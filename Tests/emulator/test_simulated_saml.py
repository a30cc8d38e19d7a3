"""Unit tests of Python/accessenabler/simulated_saml.py (the simulated platform's SAML), loaded
the way the emulator loads it: by file path, without the ctypes package."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from urllib.parse import unquote

import pytest

from aepass.simulated import SIMULATED_SAML_FILE, simulated_saml as saml

HERE = Path(__file__).resolve().parent
NS = {"samlp": "urn:oasis:names:tc:SAML:2.0:protocol", "saml": "urn:oasis:names:tc:SAML:2.0:assertion"}
ISSUER = "https://saml.sp.auth.adobe.com"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# --- the request ------------------------------------------------------------------------------

def test_saml_request_is_an_attribute_query_with_id_issuer_and_mvpd() -> None:
    text = saml.saml_request("_abc123", "REF30", "Cablevision", ISSUER)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    root = ElementTree.fromstring(text.encode())
    assert root.tag == f"{{{NS['samlp']}}}AttributeQuery"
    assert root.get("ID") == "_abc123" and root.get("Version") == "2.0"
    assert root.find("saml:Issuer", NS).text == ISSUER
    assert "Cablevision" in root.get("Destination") and "REF30" in text
    assert saml.saml_request("_abc123", "REF30", "Cablevision", ISSUER) == text  # deterministic
    # Adobe's sample `request` starts like this (Base64 of '<?xml version="1.0" encoding="UTF').
    assert b64(text).startswith("PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0iVVRG")


def test_saml_request_escapes_its_values() -> None:
    text = saml.saml_request('_a"b', "R&D", "<M>", "https://x/?a=1&b=2")
    root = ElementTree.fromstring(text.encode())
    assert root.get("ID") == '_a"b' and root.find("saml:Issuer", NS).text == "https://x/?a=1&b=2"


def test_request_id_of() -> None:
    assert saml.request_id_of(b64(saml.saml_request("_r1", "REF30", "Dish", ISSUER))) == "_r1"
    assert saml.request_id_of(b64('<samlp:AuthnRequest Version="2.0" ID="_x"/>')) == "_x"
    assert saml.request_id_of(b64("<?xml version='1.0'?>\n<!-- c --><q ID='_single'><a ID=\"no\"/></q>")) == "_single"
    # the ID of the root element only; IDs deeper down do not count
    assert saml.request_id_of(b64('<root Version="2.0"><child ID="_child"/></root>')) is None
    assert saml.request_id_of(b64('<root xID="_no"/>')) is None
    assert saml.request_id_of(b64('<root ID=""/>')) is None
    wrapped = b64(saml.saml_request("_wrapped", "REF30", "Dish", ISSUER))
    assert saml.request_id_of(wrapped[:40] + "\n" + wrapped[40:]) == "_wrapped"  # line-wrapped Base64
    for bad in ("", "not base64!", b64("no xml at all"), base64.b64encode(b"\xff\xfe<").decode(), None):
        assert saml.request_id_of(bad) is None


# --- the response -----------------------------------------------------------------------------

def test_saml_response_is_messy_like_a_platform_answer() -> None:
    text = saml.saml_response("_req", "Cablevision", ["uid", "NameID", "uniqueId", "zip"])
    assert text.endswith("\r\n") and "\r\n" in text
    assert "\n" in text.replace("\r\n", "")  # at least one bare LF
    assert "\t\t" in text  # nested tab indentation
    assert "<saml:Attribute  Name=" in text and '" \t>' in text  # two spaces; space + tab in a tag
    assert text.startswith(
        '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" '
        'xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_resp')
    assert saml.saml_response("_req", "Cablevision", ["uid", "NameID", "uniqueId", "zip"]) == text
    assert saml.saml_response("_other", "Cablevision", ["uid"]) != saml.saml_response("_req", "Cablevision", ["uid"])


def test_saml_response_content() -> None:
    text = saml.saml_response("_req", "Comcast", ["uid", "NameID", "uniqueId", "zip"])
    root = ElementTree.fromstring(text.encode())
    assert root.tag == f"{{{NS['samlp']}}}Response"
    assert root.get("InResponseTo") == "_req" and root.get("Version") == "2.0"
    assert root.get("ID").startswith("_resp")
    assert root.find("saml:Issuer", NS).text == "urn:simulated-platform:Comcast"
    status = root.find("samlp:Status/samlp:StatusCode", NS).get("Value")
    assert status == "urn:oasis:names:tc:SAML:2.0:status:Success"
    assertion = root.find("saml:Assertion", NS)
    assert assertion.find("saml:Subject/saml:NameID", NS).text == "sim-comcast" == saml.user_id("Comcast")
    values = {a.get("Name"): a.find("saml:AttributeValue", NS).text
              for a in assertion.findall("saml:AttributeStatement/saml:Attribute", NS)}
    assert values == {"uid": "sim-comcast", "NameID": "sim-comcast", "uniqueId": "sim-comcast",
                      "zip": "zip-Comcast"}
    # the cleaned text is still the same XML
    cleaned = ElementTree.fromstring(saml.clean_saml_response(text).encode())
    assert cleaned.get("InResponseTo") == "_req"


# --- the clean-up -----------------------------------------------------------------------------

@pytest.mark.parametrize("raw, clean", [
    ("<a>\t<b/>\t</a>", "<a> <b/> </a>"),
    ("<a>\t\t\t<b/></a>", "<a> <b/></a>"),
    ("<a  x='1'    y='2'>", "<a x='1' y='2'>"),
    ("<a \t x='1'>", "<a x='1'>"),  # space + tab is one run of blanks
    ("<a>\r\n<b/>\r\n</a>", "<a><b/></a>"),
    ("<a>\n<b/>\r</a>", "<a><b/></a>"),
    ("<a>\x0b<b/>\x0c</a>", "<a><b/></a>"),  # VT, FF
    ("<a>\x85<b/>\u2028<c/>\u2029</a>", "<a><b/><c/></a>"),  # NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR
    ("<a>\r\n\t<b/>", "<a> <b/>"),  # CRLF vanishes, the tab becomes one space
    ("<a> \r\n\t<b/>", "<a>  <b/>"),  # blanks on both sides of the newline: two spaces remain
    ("<a> \n \n <b/>", "<a>   <b/>"),
    ("\r\n\t <a/> \t\r\n", "<a/>"),  # trimmed at both ends
    ("\u00a0<a>\u00a0</a>\u3000", "<a>\u00a0</a>"),  # Unicode Zs trimmed at the ends only, never collapsed
    ("\x1c<a/>\x1c", "\x1c<a/>\x1c"),  # not in Foundation's whitespacesAndNewlines (Python's strip() would trim it)
    ("", ""),
])
def test_clean_saml_response(raw: str, clean: str) -> None:
    assert saml.clean_saml_response(raw) == clean


def test_clean_of_the_simulated_response() -> None:
    text = saml.saml_response("_req", "Cablevision", ["uid"])
    cleaned = saml.clean_saml_response(text)
    assert not any(c in cleaned for c in "\r\n\t") and cleaned == cleaned.strip()
    assert "</samlp:Status>  <saml:Assertion ID=" in cleaned  # the order of the clean-up matters
    assert '<saml:Attribute Name="uid" >' in cleaned
    assert cleaned.endswith("</saml:Assertion></samlp:Response>")
    # the wrong order (remove newlines first, then collapse) gives a different text
    wrong = re.sub(r"[ \t]+", " ", text.replace("\r", "").replace("\n", "")).strip()
    assert wrong != cleaned and "</samlp:Status> <saml:Assertion" in wrong


# --- the encoding -----------------------------------------------------------------------------

def test_percent_encoding_set() -> None:
    assert saml.percent_encode("!*'();:@&=+$,/?%#[]") == (
        "%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%25%23%5B%5D")
    assert saml.percent_encode("AZaz09-._~ ") == "AZaz09-._~ "  # everything else unchanged


def test_encode_saml_response_round_trip() -> None:
    text = saml.saml_response("_req", "Cablevision", ["uid", "NameID", "uniqueId"])
    encoded = saml.encode_saml_response(text)
    assert set(encoded) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789%")
    assert "\n" not in encoded and "+" not in encoded and "/" not in encoded and "=" not in encoded
    decoded = base64.b64decode(unquote(encoded), validate=True).decode()
    assert decoded == saml.clean_saml_response(text)
    base = base64.b64encode(saml.clean_saml_response(text).encode()).decode()
    assert encoded == base.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


def test_encoded_value_with_plus_slash_and_padding() -> None:
    text = "<a>\u00ff\u00fe?</a>"  # Base64 'PGE+w7/Dvj88L2E+' has '+' and '/'
    encoded = saml.encode_saml_response(text + "\n")
    assert encoded == "PGE%2Bw7%2FDvj88L2E%2B"
    assert saml.encode_saml_response("<ab/>") == "PGFiLz4%3D"  # padding


def test_loaded_by_path_without_the_ctypes_package() -> None:
    assert SIMULATED_SAML_FILE == HERE.parent.parent / "Python" / "accessenabler" / "simulated_saml.py"
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import aepass.routes; "
             "assert 'accessenabler' not in sys.modules, sorted(sys.modules)")
    result = subprocess.run([sys.executable, "-c", probe, str(HERE.parent.parent / "Emulator")], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
