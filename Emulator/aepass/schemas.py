"""JSON Schema validation for the checkers (validate.py, contract.py), with `jsonschema` imported lazily.

The emulator itself is standard library only; only the checkers validate JSON against Adobe's
schemas, and they need `jsonschema` (the `validate` extra). Importing it here, when the first schema
is used, keeps `aepass.validate`, `aepass.contract` and `aepass.testing` importable without it, and
turns its absence into an error that says what to install.
"""

from __future__ import annotations

from typing import Any

INSTALL_HINT = "pip install 'aepass-emulator[validate]' (or: pip install 'jsonschema>=4.17')"


class MissingJsonSchema(ImportError):
    """`jsonschema` is not installed, and a check needs it."""


def draft4_validator(schema: dict[str, Any]) -> Any:
    """A `jsonschema.Draft4Validator` of `schema` (Adobe's OpenAPI files use Draft 4 schemas)."""
    try:
        from jsonschema import Draft4Validator  # noqa: PLC0415 - optional, see the module's docstring
    except ImportError as error:
        raise MissingJsonSchema(f"checking JSON against Adobe's schemas needs jsonschema: {INSTALL_HINT}") from error
    return Draft4Validator(schema)
