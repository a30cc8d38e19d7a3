# SPDX-License-Identifier: Apache-2.0
"""The TLS and proxy options of ae_config version 5 (1.1), as a host passes them: each malformed
one is refused at create with AE_E_INVALID_ARG and a message that names the field, and nothing is
created (docs/ABI.md: version 5). The behaviour on the wire, over a real TLS front, is
test_tls_front.py's and test_tls.py's."""
import base64
import hashlib
import os

import pytest
from harness import SOFTWARE_STATEMENT, ae

GOOD_PIN = "sha256//" + base64.b64encode(hashlib.sha256(b"any key").digest()).decode()


def refused(emulator, **options):
    with pytest.raises(ae.AEError) as error:
        ae.Client(SOFTWARE_STATEMENT, object(), base_url=emulator.url, **options)
    assert error.value.status == ae.AE_E_INVALID_ARG, error.value
    return error.value.message


def test_a_ca_file_that_does_not_exist_is_refused_at_create(emulator, tmp_path):
    message = refused(emulator, ca_file=str(tmp_path / "missing.pem"))
    assert "ca_file" in message and "missing.pem" in message and "No such file" in message


def test_a_ca_file_without_a_certificate_is_refused_at_create(emulator, tmp_path):
    for name, content in [("empty.pem", b""), ("text.pem", b"not a certificate\n"),
                          ("broken.pem", b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")]:
        (tmp_path / name).write_bytes(content)
        message = refused(emulator, ca_file=str(tmp_path / name))
        assert "no PEM certificate" in message, (name, message)


def test_a_ca_path_that_is_not_a_directory_is_refused(emulator, tmp_path):
    (tmp_path / "file").write_text("x")
    for path in [tmp_path / "missing", tmp_path / "file"]:
        assert "ca_path" in refused(emulator, ca_path=str(path))


def test_trusting_only_given_cas_needs_some(emulator):
    assert "nothing would be trusted" in refused(emulator, ca_mode=ae.AE_CA_ONLY)


@pytest.mark.parametrize("pin", ["", "sha256//", "sha1//" + GOOD_PIN[8:], GOOD_PIN[:-1], GOOD_PIN + "A",
                                 GOOD_PIN.replace("=", "A"), "sha256//" + "é" * 44, GOOD_PIN + ";"])
def test_malformed_pins_are_refused(emulator, pin):
    assert "pinned_public_keys" in refused(emulator, pinned_public_keys=pin)


def test_well_formed_pins_are_accepted(emulator):
    other = "sha256//" + base64.b64encode(hashlib.sha256(b"other key").digest()).decode()
    ae.Client(SOFTWARE_STATEMENT, object(), base_url=emulator.url, pinned_public_keys=[GOOD_PIN, other]).close()


@pytest.mark.parametrize("proxy", ["proxy.example:3128", "ftp://proxy.example:21", "http://proxy.example",
                                   "http://proxy.example:0", "http://proxy.example:65536", "http://:3128",
                                   "http://proxy.example:3128/path", "http://proxy example:3128",
                                   "http://proxy.example:3128\r\nX: 1"])
def test_malformed_proxies_are_refused(emulator, proxy):
    assert "proxy" in refused(emulator, proxy=proxy)


@pytest.mark.parametrize("field,value", [("ca_mode", 2), ("ca_mode", -1), ("min_tls_version", 2),
                                         ("min_tls_version", -1), ("min_tls_version", 2**31 - 1)])
def test_unknown_enumeration_values_are_refused(emulator, field, value):
    assert field in refused(emulator, **{field: value})


def test_valid_options_create_a_client(emulator, tmp_path):
    # Any readable PEM certificate will do for create (the system's bundle has many).
    bundle = next(p for p in ["/etc/ssl/certs/ca-certificates.crt", "/etc/ssl/cert.pem"] if os.path.exists(p))
    client = ae.Client(SOFTWARE_STATEMENT, object(), base_url=emulator.url, ca_file=bundle, ca_path="/etc/ssl/certs",
                       ca_mode=ae.AE_CA_ONLY, min_tls_version=ae.AE_TLS_1_3, proxy="socks5h://127.0.0.1:1080",
                       proxy_from_environment=True, pinned_public_keys=GOOD_PIN)
    client.close()
