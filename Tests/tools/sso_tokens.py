# SPDX-License-Identifier: Apache-2.0
"""Test tokens for the emulator's platform identity and service token SSO: keys made at test time,
AD-Service-Token / Adobe-Subject-Token / X-Roku-Reserved-Roku-Connect-Token values with any claims,
header or algorithm, and broken ones. Nothing secret is committed: every key is made for the run.

Used by Tests/emulator (emulator_testkit puts this folder on sys.path) and by the SDK's tests in
Tests/python (put `Tests/tools` on sys.path, then `import sso_tokens`). Needs `cryptography`.

    issuer = sso_tokens.Issuer("idp.example")                 # RSA 2048, RS256
    api.control("POST", "config", {"service_token_keys": issuer.config()})
    token = issuer.service_token("viewer-1")                  # aud Adobe, iat now, exp now + 1 h
    headers = {"AD-Service-Token": token}

    roku = sso_tokens.Issuer("roku", alg="ES256")              # EC P-256, ES256
    api.control("POST", "config", {"platform_token_keys": roku.config()})
    headers = {"Adobe-Subject-Token": roku.platform_token("device-owner-7")}

Broken tokens: `issuer.token(claims, alg="none")` (unsigned), `tampered(token)`, `with_crlf(token)`,
`issuer.service_token(..., omit=("sub",))`, `ttl_s=-10` (expired), `iat_offset_s=3600` (issued in
the future), `aud="Other"`, `extra={"pad": "x" * 10000}` (huge), `header={"crit": ["b64"]}`,
`other.service_token(...)` signed by another issuer's key under this issuer's name (`iss=`).
`sha256_prefix(token)` is what the emulator's request log records instead of the token.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from typing import Any, Iterable

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

__all__ = ["Issuer", "b64url", "jws", "platform_jwe", "tampered", "with_crlf", "claims_of", "header_of",
           "sha256_prefix", "config_of"]


def b64url(data: bytes | str) -> str:
    """Unpadded base64url (RFC 7515 §2)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _json(value: Any) -> str:
    return b64url(json.dumps(value, separators=(",", ":")))


class Issuer:
    """A test identity service (an AD-Service-Token issuer) or platform (an Adobe-Subject-Token
    issuer): a name (the `iss` claim) and a key pair made now.

    `alg`: "RS256" (RSA 2048; what AD-Service-Token requires) or "ES256" (EC P-256; platform tokens
    only)."""

    def __init__(self, name: str = "test-idp", alg: str = "RS256") -> None:
        if alg not in ("RS256", "ES256"):
            raise ValueError("alg must be RS256 or ES256")
        self.name = name
        self.alg = alg
        self.private_key: Any = (rsa.generate_private_key(public_exponent=65537, key_size=2048) if alg == "RS256"
                                 else ec.generate_private_key(ec.SECP256R1()))
        self.public_pem = self.private_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode("ascii")

    def config(self) -> dict[str, str]:
        """`{name: public PEM}`: the value of the config keys `service_token_keys` / `platform_token_keys`
        (merge several with `config_of`)."""
        return {self.name: self.public_pem}

    def write_pem(self, path: str | os.PathLike[str]) -> str:
        """Writes the public key to `path` (for `--service-token-key NAME=PATH`); returns the path."""
        with open(path, "w", encoding="ascii") as out:
            out.write(self.public_pem)
        return str(path)

    def sign(self, signing_input: bytes, alg: str | None = None) -> bytes:
        """The JWS signature of `signing_input` with this issuer's key (`alg` defaults to the issuer's)."""
        alg = alg or self.alg
        if alg == "RS256":
            return self.private_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        if alg == "ES256":
            r, s = decode_dss_signature(self.private_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
            return r.to_bytes(32, "big") + s.to_bytes(32, "big")
        raise ValueError(f"cannot sign with alg {alg!r}")

    def token(self, claims: dict[str, Any], *, header: dict[str, Any] | None = None, alg: str | None = None) -> str:
        """A compact JWS of exactly `claims`. `header` entries are added to (or, with None values, removed
        from) `{"alg": alg, "typ": "JWT"}`; `alg="none"` gives an unsigned token (empty signature)."""
        return jws(claims, self if alg != "none" else None, header=header, alg=alg or self.alg)

    def claims(self, sub: str = "viewer-1", *, aud: Any = "Adobe", now_s: float | None = None, ttl_s: float = 3600,
               iat_offset_s: float = 0, iss: str | None = None, extra: dict[str, Any] | None = None,
               omit: Iterable[str] = ()) -> dict[str, Any]:
        """The claims of a token: `iss` (this issuer's name unless given), `sub`, `aud`, `iat` = now +
        `iat_offset_s`, `exp` = now + `ttl_s` (negative: expired), plus `extra`, minus the names in `omit`.
        `now_s` defaults to the real time: pass the emulator's (`GET /_emulator/clock` now_ms / 1000)
        after advancing its clock."""
        now = time.time() if now_s is None else now_s
        claims: dict[str, Any] = {"iss": self.name if iss is None else iss, "sub": sub, "aud": aud,
                                  "iat": int(now + iat_offset_s), "exp": int(now + ttl_s)}
        claims.update(extra or {})
        for name in omit:
            claims.pop(name, None)
        return claims

    def service_token(self, sub: str = "viewer-1", *, header: dict[str, Any] | None = None,
                      alg: str | None = None, **claim_options: Any) -> str:
        """An AD-Service-Token value (a JWS); the keyword arguments of `claims` apply."""
        return self.token(self.claims(sub, **claim_options), header=header, alg=alg)

    def platform_token(self, sub: str = "platform-user-1", *, header: dict[str, Any] | None = None,
                       alg: str | None = None, **claim_options: Any) -> str:
        """An Adobe-Subject-Token / X-Roku-Reserved-Roku-Connect-Token value (a JWS)."""
        return self.token(self.claims(sub, **claim_options), header=header, alg=alg)

    def platform_jwe(self, sub: str = "platform-user-1", **claim_options: Any) -> str:
        """A JWE-shaped platform token for this issuer (see `platform_jwe`)."""
        return platform_jwe(self.claims(sub, **claim_options))


def jws(claims: dict[str, Any], signer: Issuer | None, *, header: dict[str, Any] | None = None,
        alg: str = "RS256") -> str:
    """A compact JWS: `{"alg": alg, "typ": "JWT", **header}` (None values remove entries), the claims,
    and the signature of `signer` (None, or alg "none": an empty signature)."""
    protected: dict[str, Any] = {"alg": alg, "typ": "JWT"}
    for name, value in (header or {}).items():
        if value is None:
            protected.pop(name, None)
        else:
            protected[name] = value
    signing_input = f"{_json(protected)}.{_json(claims)}"
    if signer is None or alg == "none":
        return signing_input + "."
    return f"{signing_input}.{b64url(signer.sign(signing_input.encode('ascii'), alg))}"


def platform_jwe(claims: dict[str, Any], *, header: dict[str, Any] | None = None,
                 empty: Iterable[str] = ()) -> str:
    """A compact JWE (5 parts) whose protected header replicates `claims` (RFC 7519 §5.3), with
    `alg` RSA-OAEP-256 and `enc` A256GCM, and random encrypted key, IV, ciphertext and tag: the
    emulator reads JWE as structure only (it cannot decrypt). `empty`: names of parts to leave
    empty ("key", "iv", "ciphertext", "tag") to build broken ones."""
    protected: dict[str, Any] = {"alg": "RSA-OAEP-256", "enc": "A256GCM", "typ": "JWT", **claims}
    for name, value in (header or {}).items():
        if value is None:
            protected.pop(name, None)
        else:
            protected[name] = value
    sizes = {"key": 256, "iv": 12, "ciphertext": 48, "tag": 16}
    parts = ["" if name in empty else b64url(os.urandom(size)) for name, size in sizes.items()]
    return ".".join([_json(protected), *parts])


def tampered(token: str) -> str:
    """The token with one signature character changed: the signature no longer verifies."""
    head, _, signature = token.rpartition(".")
    if not signature:
        return token + "AAAA"
    index = len(signature) // 2
    replacement = "A" if signature[index] != "A" else "B"
    return f"{head}.{signature[:index]}{replacement}{signature[index + 1:]}"


def with_crlf(token: str) -> str:
    """The token with CR LF in the middle of its payload (no HTTP client sends that in a header:
    use it for V1's `ast` parameter, or with a raw socket)."""
    middle = len(token) // 2
    return token[:middle] + "\r\n" + token[middle:]


def _decode(part: str) -> Any:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def header_of(token: str) -> dict[str, Any]:
    """The protected header, not verified."""
    return _decode(token.split(".")[0])


def claims_of(token: str) -> dict[str, Any]:
    """The claims, not verified (a JWE's: those replicated in its header)."""
    parts = token.split(".")
    return _decode(parts[0]) if len(parts) == 5 else _decode(parts[1])


def sha256_prefix(token: str) -> str:
    """What the emulator's request log records for a token: the first 12 hex digits of its SHA-256."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()[:12]


def config_of(*issuers: Issuer) -> dict[str, str]:
    """`{name: public PEM}` for several issuers (a config key's value)."""
    merged: dict[str, str] = {}
    for issuer in issuers:
        merged.update(issuer.config())
    return merged
