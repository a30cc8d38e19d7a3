#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Makes a demo platform for platform-identity SSO (docs/PLATFORM-SSO.md): an issuer key pair made now,
its public key for the emulator, and a platform identity token (JWS, RS256) for one household.

    python3 scripts/platform-token.py DIRECTORY [SUBJECT]

Writes DIRECTORY/platform-key.pem (give it to the emulator: --platform-token-key demo-platform=FILE)
and DIRECTORY/platform-token.jws (give it to the players: c-player --platform-token FILE); prints the
issuer name. Nothing secret is kept: the private key is never written. Needs `cryptography`.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests/tools"))
try:
    import sso_tokens
except ImportError as error:
    sys.exit(f"platform-token: {error} (python3 -m pip install cryptography==48.0.0)")


def main(argv):
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    directory = Path(argv[0])
    directory.mkdir(parents=True, exist_ok=True)
    issuer = sso_tokens.Issuer("demo-platform")
    issuer.write_pem(directory / "platform-key.pem")
    (directory / "platform-token.jws").write_text(issuer.platform_token(argv[1] if len(argv) == 2 else "household-1"))
    print(issuer.name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
