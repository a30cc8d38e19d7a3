# SPDX-License-Identifier: Apache-2.0
"""Test certificates made at test time with the openssl command line (standard library only): a test root
(`ca_file`, and `ca_path` for CURLOPT_CAPATH) and the server certificates `good`, `expired`,
`not_yet_valid`, `wrong_host` (only `wrong.example`), `self_signed`, `untrusted` (signed by a second root
that is in neither) and `good_rsa`, each a `Pair` with `.cert` and `.key`; `pin()` gives a certificate's
CURLOPT_PINNEDPUBLICKEY. Nothing secret is committed: every key is made for the run. tlsfront.py serves
them."""
import base64
import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import NamedTuple

DAY = 86400


class Pair(NamedTuple):
    cert: Path
    key: Path


class Pki(NamedTuple):
    directory: Path
    ca_file: Path  # the test root (PEM): CURLOPT_CAINFO, ssl cafile
    ca_path: Path  # a directory with the root under its subject-hash name: CURLOPT_CAPATH
    root: Pair
    other_root: Pair  # signs `untrusted`; in neither ca_file nor ca_path
    good: Pair
    expired: Pair
    not_yet_valid: Pair
    wrong_host: Pair
    self_signed: Pair
    untrusted: Pair
    good_rsa: Pair


# One `openssl ca` configuration for every certificate: the database in ca-db/, an extension section each.
_CA_CONFIG = """\
[ca]
default_ca = ca_default
[ca_default]
database = ca-db/index.txt
new_certs_dir = ca-db
serial = ca-db/serial
default_md = sha256
policy = policy_any
unique_subject = no
copy_extensions = none
[policy_any]
commonName = supplied
[req]
distinguished_name = req_dn
[req_dn]
[root]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
# adobe.test: a name that only Tests/c/dns_counter.c resolves (libcurl answers localhost itself).
subjectAltName = DNS:localhost, DNS:adobe.test, IP:127.0.0.1, IP:::1
[server_rsa]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1
[wrong_host]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = DNS:wrong.example
[self_signed]
# No keyUsage: OpenSSL takes a certificate for self-signed only if it may sign certificates, and then
# says "self-signed certificate" rather than "unable to get local issuer certificate".
basicConstraints = critical, CA:FALSE
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1
"""


def _run(args, cwd=None, env=None):
    """Runs a command; its stdout, or RuntimeError with its stderr."""
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def _utc(t):
    return time.strftime("%y%m%d%H%M%SZ", time.gmtime(t))  # UTCTime, as RFC 5280 wants before 2050


def make_pki(directory):
    """Creates the test PKI in `directory` (18 openssl runs, ~0.2 s with the RSA key); returns its Pki."""
    d = Path(directory)
    (d / "ca-db").mkdir(parents=True, exist_ok=True)
    (d / "ca-db/index.txt").write_text("")
    (d / "ca-db/serial").write_text("1000\n")
    (d / "ca.cnf").write_text(_CA_CONFIG)
    env = dict(os.environ, OPENSSL_CONF=str(d / "ca.cnf"))  # not the system's openssl.cnf
    now = int(time.time())

    def openssl(*args):
        return _run(["openssl", *args], cwd=d, env=env)

    def key_and_request(name, subject, key=("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256")):
        openssl("req", "-new", *key, "-nodes",
                "-keyout", f"{name}.key", "-out", f"ca-db/{name}.csr", "-subj", subject)
        return d / f"{name}.key"

    def sign(name, request, issuer, extensions, days, subject="/CN=localhost"):
        """Certificate `name`.pem for `request` (a key's CSR), valid from now+days[0] to now+days[1];
        issuer None: self-signed with the request's key."""
        signer = ["-selfsign", "-keyfile", f"{request}.key"] if issuer is None else \
            ["-cert", f"{issuer}.pem", "-keyfile", f"{issuer}.key"]
        openssl("ca", "-batch", "-notext", "-config", "ca.cnf", *signer, "-in", f"ca-db/{request}.csr",
                "-out", f"{name}.pem", "-extensions", extensions, "-subj", subject,
                "-startdate", _utc(now + days[0] * DAY), "-enddate", _utc(now + days[1] * DAY))
        return d / f"{name}.pem"

    roots = {}
    for root, subject in (("root", "/CN=AccessEnabler Test Root"), ("other_root", "/CN=AccessEnabler Other Root")):
        key = key_and_request(root, subject)
        roots[root] = Pair(sign(root, root, None, "root", (-1, 3650), subject), key)
    server_key, other_key = key_and_request("server", "/CN=localhost"), key_and_request("other", "/CN=localhost")
    rsa_key = key_and_request("rsa", "/CN=localhost", ("-newkey", "rsa:2048"))
    current, wrong = (-1, 30), "/CN=wrong.example"
    leaves = {
        "good": Pair(sign("good", "server", "root", "server", current), server_key),
        "expired": Pair(sign("expired", "server", "root", "server", (-30, -1)), server_key),
        "not_yet_valid": Pair(sign("not_yet_valid", "server", "root", "server", (1, 30)), server_key),
        "wrong_host": Pair(sign("wrong_host", "server", "root", "wrong_host", current, wrong), server_key),
        "self_signed": Pair(sign("self_signed", "other", None, "self_signed", current), other_key),
        "untrusted": Pair(sign("untrusted", "other", "other_root", "server", current), other_key),
        "good_rsa": Pair(sign("good_rsa", "rsa", "root", "server_rsa", current), rsa_key),
    }
    ca_path = d / "ca_path"
    ca_path.mkdir(exist_ok=True)
    shutil.copyfile(roots["root"].cert, ca_path / "root.pem")
    openssl("rehash", ca_path)  # adds <subject hash>.0 -> root.pem
    return Pki(directory=d, ca_file=roots["root"].cert, ca_path=ca_path, **roots, **leaves)


def pin(cert_path):
    """CURLOPT_PINNEDPUBLICKEY of a certificate: "sha256//" + base64(SHA-256(DER SubjectPublicKeyInfo))."""
    pem = _run(["openssl", "x509", "-in", cert_path, "-noout", "-pubkey"])  # the SPKI, PEM-armoured
    der = base64.b64decode("".join(line for line in pem.splitlines() if not line.startswith("-----")))
    return "sha256//" + base64.b64encode(hashlib.sha256(der).digest()).decode()
