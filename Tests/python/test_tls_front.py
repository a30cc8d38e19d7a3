# SPDX-License-Identifier: Apache-2.0
"""The TLS fixtures themselves (tlsfront.py), without the SDK: the openssl command line. This module
neither imports accessenabler nor uses conftest.py's fixtures, so it also runs where libaccessenabler.so
is not built, with conftest.py (which imports harness, which loads the library) left out:

    python3 -m pytest -q --noconftest Tests/python/test_tls_front.py
"""
import shutil
import subprocess

import pytest

from tlsfront import make_pki, pin

if not shutil.which("openssl"):
    pytest.skip("needs the openssl command", allow_module_level=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("pki"))


def test_pki_has_the_root_under_its_hash_and_the_pin_of_openssl(pki):
    subject_hash = subprocess.run(["openssl", "x509", "-in", pki.ca_file, "-noout", "-subject_hash"],
                                  capture_output=True, text=True, check=True).stdout.strip()
    assert (pki.ca_path / f"{subject_hash}.0").resolve().read_bytes() == pki.ca_file.read_bytes()
    pipeline = (f"openssl x509 -in {pki.good.cert} -pubkey -noout | openssl pkey -pubin -outform der"
                " | openssl dgst -sha256 -binary | base64")
    expected = subprocess.run(pipeline, shell=True, capture_output=True, text=True, check=True).stdout.strip()
    assert pin(pki.good.cert) == f"sha256//{expected}"
    assert pin(pki.expired.cert) == pin(pki.good.cert)  # one key for the certificates of the root's server
    assert pin(pki.self_signed.cert) not in (pin(pki.good.cert), pin(pki.ca_file))


@pytest.mark.parametrize("name, error", [
    ("good", None),
    ("expired", "certificate has expired"),
    ("not_yet_valid", "certificate is not yet valid"),
    ("wrong_host", "hostname mismatch"),
    ("self_signed", "self-signed certificate"),
    ("untrusted", "unable to get local issuer certificate"),
])
def test_openssl_verify_judges_each_certificate_by_the_ca_path(pki, name, error):
    for check in ("-verify_hostname", "localhost"), ("-verify_ip", "127.0.0.1"), ("-verify_ip", "::1"):
        done = subprocess.run(["openssl", "verify", "-no-CAfile", "-no-CAstore", "-CApath", pki.ca_path, *check,
                               getattr(pki, name).cert], capture_output=True, text=True)
        if error is None:
            assert done.returncode == 0 and done.stdout.endswith(": OK\n"), done.stderr
        else:
            expected = "IP address mismatch" if name == "wrong_host" and check[0] == "-verify_ip" else error
            assert done.returncode == 2 and f"lookup: {expected}\n" in done.stderr, done.stderr
