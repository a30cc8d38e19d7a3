# SPDX-License-Identifier: Apache-2.0
"""A call the library refused at once: AEError, with the status (AE_E_*) and the thread's last error message."""
import ctypes

from ._abi import AE_OK
from ._library import lib


class AEError(Exception):
    """A call was refused at once (no callback follows)."""

    def __init__(self, status, message):
        super().__init__(f"{lib.ae_status_string(status).decode()} ({status}): {message}")
        self.status = status
        self.message = message


def last_error_message():
    pointer = lib.ae_last_error_message()
    if not pointer:
        return None
    try:
        return ctypes.string_at(pointer).decode()
    finally:
        lib.ae_string_free(pointer)


def check(status):
    if status != AE_OK:
        raise AEError(status, last_error_message())
    return status
