"""Compact JWS verification for the SSO tokens (AD-Service-Token, Adobe-Subject-Token,
X-Roku-Reserved-Roku-Connect-Token), and the structural reading of a compact JWE.

Verification needs the `cryptography` package; it is imported when a key is loaded or a signature
checked, so an emulator without SSO keys still runs on the standard library alone.

`verify(token, keys, algorithms, now_s)` returns the claims of a token that passes every check, or
raises `TokenRefused` with a short reason (the request log's `problem`). Checks, in order:

* the text: at most `MAX_TOKEN_CHARS` characters, only base64url characters and dots (no
  whitespace, no CR/LF, no padding), 3 parts (JWS) or 5 parts (JWE);
* JWS protected header: Base64url of a JSON object with `alg` one of `algorithms` (`none` and every
  other value refused), no `crit`;
* payload: Base64url of a JSON object; `iss` a non-empty string naming a configured issuer;
* signature: RS256 (RSASSA-PKCS1-v1_5, SHA-256) with an RSA key, ES256 (ECDSA P-256, SHA-256, the
  64-byte R||S form of RFC 7518 §3.4) with an EC P-256 key;
* claims: `sub` a non-empty string; `aud` a string or a list of strings, one of them "Adobe"
  (in any ASCII case: Adobe's header page says "Adobe", its example has "adobe"; the SDK's
  IdentityToken compares the same way);
  `exp` a number > now; `iat` a number <= now + `SKEW_S`; `nbf`, when present, <= now + `SKEW_S`.

JWE (5 parts) is read as structure only: the emulator holds no decryption key. The claims are
taken from the protected header, where RFC 7519 §5.3 allows an encrypted JWT to replicate them
(`iss`, `sub`, `aud`, `exp`, `iat`); `alg` and `enc` must be present, the encrypted key may be
empty (`alg: dir`), the IV, ciphertext and tag must not; the claims are then checked as above.
Anyone can build such a token: it proves nothing, which is why JWE is accepted only for an issuer
configured in `platform_token_keys` (see README "Platform identity and service token SSO").
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from . import jsontext

# Adobe states no limit: the SDK's (IdentityToken.maxBytes, issue 20), so that the emulator never
# refuses for its length a token the SDK sends, nor takes one the SDK refuses (README, Strictness).
MAX_TOKEN_CHARS = 16 * 1024
SKEW_S = 60
AUDIENCE = "adobe"  # compared in lower case, ASCII only
SERVICE_TOKEN_ALGORITHMS = ("RS256",)  # Adobe: "The JWT must be signed using SHA256withRSA"
PLATFORM_TOKEN_ALGORITHMS = ("RS256", "ES256")
_COMPACT = re.compile(r"^[A-Za-z0-9_\-.]+$")
_PEM_BEGIN = "-----BEGIN "


class TokenRefused(ValueError):
    """Why a token is not accepted (the text is safe to log: it never quotes the token)."""


class KeyProblem(ValueError):
    """A configured key that cannot be used."""


@functools.cache
def _crypto() -> SimpleNamespace:
    """The parts of `cryptography` the verification uses, imported on first use."""
    try:
        from cryptography import x509
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils
    except ImportError:  # pragma: no cover - depends on the machine
        raise KeyProblem("verifying SSO tokens needs the Python package cryptography "
                         "(python3 -m pip install cryptography==48.0.0)") from None
    return SimpleNamespace(x509=x509, InvalidSignature=InvalidSignature, hashes=hashes,
                           serialization=serialization, ec=ec, padding=padding, rsa=rsa, utils=utils)


def pem_text(value: str) -> str:
    """The PEM text of a configured key: the value itself, or the file it names."""
    if value.lstrip().startswith(_PEM_BEGIN):
        return value
    try:
        return Path(value).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as error:
        raise KeyProblem(f"{value!r} is neither PEM text nor a readable PEM file ({error})") from None


@functools.lru_cache(maxsize=64)
def load_public_key(value: str, kinds: tuple[str, ...]) -> Any:
    """A public key from PEM text or a PEM file: `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo),
    `-----BEGIN RSA PUBLIC KEY-----` (PKCS#1) or `-----BEGIN CERTIFICATE-----` (its key). `kinds`:
    the accepted key types, "RSA" and/or "EC" (P-256 only)."""
    crypto = _crypto()
    data = pem_text(value).encode("ascii")
    try:
        if b"-----BEGIN CERTIFICATE-----" in data:
            key = crypto.x509.load_pem_x509_certificate(data).public_key()
        else:
            key = crypto.serialization.load_pem_public_key(data)
    except ValueError as error:
        raise KeyProblem(f"not a PEM public key or certificate ({error})") from None
    if isinstance(key, crypto.rsa.RSAPublicKey):
        kind = "RSA"
        if key.key_size < 2048:
            raise KeyProblem(f"an RSA key of {key.key_size} bits (at least 2048 are needed)")
    elif isinstance(key, crypto.ec.EllipticCurvePublicKey):
        kind = "EC"
        if not isinstance(key.curve, crypto.ec.SECP256R1):
            raise KeyProblem(f"an EC key on {key.curve.name} (ES256 needs P-256)")
    else:
        raise KeyProblem(f"a {type(key).__name__} (expected {' or '.join(kinds)})")
    if kind not in kinds:
        raise KeyProblem(f"an {kind} key (expected {' or '.join(kinds)})")
    return key


def b64url_decode(part: str) -> bytes:
    """Strict unpadded base64url (RFC 7515 §2)."""
    if "=" in part or len(part) % 4 == 1:
        raise ValueError("not unpadded base64url")
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def _json_object(part: str, what: str) -> dict[str, Any]:
    try:
        value = jsontext.loads(b64url_decode(part))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise TokenRefused(f"the {what} is not base64url of JSON") from None
    if not isinstance(value, dict):
        raise TokenRefused(f"the {what} is not a JSON object")
    return value


def split(token: str) -> list[str]:
    """The parts of a compact JWS (3) or JWE (5), after the text checks."""
    if len(token) > MAX_TOKEN_CHARS:
        raise TokenRefused(f"the token is longer than {MAX_TOKEN_CHARS} characters")
    if not token:
        raise TokenRefused("the token is empty")
    if not _COMPACT.match(token):
        raise TokenRefused("the token has characters outside base64url and '.' "
                           "(whitespace, CR/LF, padding?)")
    parts = token.split(".")
    if len(parts) not in (3, 5):
        raise TokenRefused(f"the token has {len(parts)} parts (compact JWS has 3, JWE 5)")
    return parts


def peek(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(protected header, claims) without any check of the signature or the claims; for a JWE
    the claims are those replicated in its header."""
    parts = split(token)
    header = _json_object(parts[0], "protected header")
    if len(parts) == 5:
        return header, header
    return header, _json_object(parts[1], "payload")


def _number(value: Any) -> bool:
    """A JSON number that is finite (json.loads also reads NaN and Infinity)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_claims(claims: dict[str, Any], now_s: float) -> None:
    """`sub`, `aud`, `exp`, `iat`, `nbf` (the issuer has been checked already)."""
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub:
        raise TokenRefused("the sub claim is missing or not a non-empty string")
    aud = claims.get("aud")
    audiences = [aud] if isinstance(aud, str) else aud
    if not isinstance(audiences, list) or not all(isinstance(a, str) for a in audiences):
        raise TokenRefused("the aud claim is missing or not a string (or list of strings)")
    if AUDIENCE not in {a.lower() for a in audiences if a.isascii()}:
        raise TokenRefused(f"the audience is {aud!r}, not Adobe")
    exp = claims.get("exp")
    if not _number(exp):
        raise TokenRefused("the exp claim is missing or not a number")
    if exp <= now_s:
        raise TokenRefused(f"the token expired at {exp} (now {int(now_s)})")
    iat = claims.get("iat")
    if not _number(iat):
        raise TokenRefused("the iat claim is missing or not a number")
    if iat > now_s + SKEW_S:
        raise TokenRefused(f"the token was issued in the future (iat {iat}, now {int(now_s)})")
    nbf = claims.get("nbf")
    if nbf is not None and (not _number(nbf) or nbf > now_s + SKEW_S):
        raise TokenRefused(f"the token is not valid yet (nbf {nbf!r}, now {int(now_s)})")


def _issuer(claims: dict[str, Any], keys: dict[str, str]) -> str:
    iss = claims.get("iss")
    if not isinstance(iss, str) or not iss:
        raise TokenRefused("the iss claim is missing or not a non-empty string")
    if iss not in keys:
        raise TokenRefused(f"no key is configured for the issuer {iss!r}: the token cannot be verified")
    return iss


def _verify_signature(alg: str, key: Any, signed: bytes, signature: bytes) -> None:
    crypto = _crypto()
    try:
        if alg == "RS256":
            if not isinstance(key, crypto.rsa.RSAPublicKey):
                raise TokenRefused("RS256 needs an RSA key; the issuer's key is not one")
            key.verify(signature, signed, crypto.padding.PKCS1v15(), crypto.hashes.SHA256())
        else:  # ES256
            if not isinstance(key, crypto.ec.EllipticCurvePublicKey):
                raise TokenRefused("ES256 needs an EC P-256 key; the issuer's key is not one")
            if len(signature) != 64:
                raise TokenRefused("an ES256 signature is 64 bytes (R||S)")
            der = crypto.utils.encode_dss_signature(int.from_bytes(signature[:32], "big"),
                                                    int.from_bytes(signature[32:], "big"))
            key.verify(der, signed, crypto.ec.ECDSA(crypto.hashes.SHA256()))
    except crypto.InvalidSignature:
        raise TokenRefused("the signature does not verify with the issuer's key") from None


def verify(token: str, keys: dict[str, str], algorithms: tuple[str, ...], now_s: float,
           allow_jwe: bool = False) -> dict[str, Any]:
    """The claims of a valid token (see the module docstring), else TokenRefused. `keys`: issuer ->
    PEM text or path (config `service_token_keys` / `platform_token_keys`)."""
    parts = split(token)
    header = _json_object(parts[0], "protected header")
    if len(parts) == 5:
        if not allow_jwe:
            raise TokenRefused("a JWE is not accepted here (the service token is a JWS)")
        if not isinstance(header.get("alg"), str) or not isinstance(header.get("enc"), str):
            raise TokenRefused("the JWE protected header lacks alg or enc")
        if not all(parts[2:]):
            raise TokenRefused("the JWE has an empty IV, ciphertext or tag")
        _issuer(header, keys)
        check_claims(header, now_s)
        return header
    alg = header.get("alg")
    if alg not in algorithms:
        raise TokenRefused(f"alg {alg!r} is not accepted (accepted: {', '.join(algorithms)})")
    if "crit" in header:
        raise TokenRefused("the protected header has crit extensions the emulator does not understand")
    claims = _json_object(parts[1], "payload")
    iss = _issuer(claims, keys)
    try:
        key = load_public_key(keys[iss], ("RSA", "EC") if "ES256" in algorithms else ("RSA",))
        signature = b64url_decode(parts[2])
    except KeyProblem as problem:
        raise TokenRefused(f"the key configured for {iss!r} cannot be used: {problem}") from None
    except (ValueError, binascii.Error):
        raise TokenRefused("the signature is not base64url") from None
    _verify_signature(alg, key, f"{parts[0]}.{parts[1]}".encode("ascii"), signature)
    check_claims(claims, now_s)
    return claims
