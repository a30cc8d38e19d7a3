# SPDX-License-Identifier: Apache-2.0
"""accessenabler: a thin ctypes layer over libaccessenabler.so (Include/accessenabler.h).

The package's modules, each named after what it holds (everything is importable from the package):

  _abi       the header's constants, structs, callback types and function signatures, generated from it
             by scripts/gen-python-bindings.py (its one home; scripts/test.sh checks it is up to date)
  _library   which library is loaded (LIBRARY_PATH; $AE_LIBRARY first, see there), its functions
             declared with the header's argtypes/restype (Tests/python/test_bindings.py checks them
             against the header, and the structs against the C compiler)
  errors     AEError, check() and last_error_message()
  client     Client, its callbacks and their lifetime (closed at interpreter exit)
  partner, transport, simulated_saml   the partner framework and HTTP transport bridges

Ownership follows the header: strings passed in are copied by the library; strings handed to
callbacks are borrowed (copied into Python str before the callback returns); owned strings returned
by the library (`char *`) come back as c_void_p and are freed with ae_string_free.

Partner framework (platform TV-provider SSO): `Client(..., partner=obj)` takes an
`accessenabler.partner.Partner` (for tests, `accessenabler.partner.PartnerSimulator`); the Client
keeps the partner, its `PartnerFramework` struct and its callbacks alive.
"""
# The standard modules this namespace held before it was split into modules (1.3): still importable from it.
import atexit, collections, ctypes, glob, json, os, threading, weakref  # noqa: E401, F401

from ._abi import *  # noqa: F401, F403 (the header's names: AE_*, the structs, the callback types)
from ._abi import (_CALLBACKS, _CLIENT, AE_ACCESS_ENABLER_STATUS_ERROR,  # noqa: F401
                   AE_ACCESS_ENABLER_STATUS_SUCCESS, AE_GENERIC_AUTHENTICATION_ERROR, AE_GENERIC_AUTHORIZATION_ERROR,
                   AE_METADATA_AUTHENTICATION, AE_METADATA_AUTHORIZATION, AE_METADATA_DEVICE_ID, AE_METADATA_USER_META,
                   AE_PROVIDER_NOT_SELECTED_ERROR, AE_TRACKING_AUTHENTICATION, AE_TRACKING_AUTHORIZATION,
                   AE_TRACKING_MVPD_SELECTION, AE_USER_AUTHENTICATED, AE_USER_NOT_AUTHENTICATED_ERROR,
                   AE_USER_NOT_AUTHORIZED_ERROR, __version__)
from ._library import (_PARTNER_SIGNATURES, _SIGNATURES, HAS_PARTNER_FRAMEWORK, LIBRARY_PATH,  # noqa: F401
                       _find_library, lib, version)
from .client import (_EXIT_HOOKS, _OPEN_CLIENTS, _RETIRED, Client, IdentityRequest, _close_at_exit,  # noqa: F401
                     _encode, _json, _text)
from .errors import AEError, check, last_error_message  # noqa: F401

# AccessEnabler's constants by the names of Adobe's SDKs: the header's, without its AE_ prefix.
ACCESS_ENABLER_STATUS_ERROR = AE_ACCESS_ENABLER_STATUS_ERROR
ACCESS_ENABLER_STATUS_SUCCESS = AE_ACCESS_ENABLER_STATUS_SUCCESS
USER_AUTHENTICATED = AE_USER_AUTHENTICATED
USER_NOT_AUTHENTICATED_ERROR = AE_USER_NOT_AUTHENTICATED_ERROR
USER_NOT_AUTHORIZED_ERROR = AE_USER_NOT_AUTHORIZED_ERROR
PROVIDER_NOT_SELECTED_ERROR = AE_PROVIDER_NOT_SELECTED_ERROR
GENERIC_AUTHENTICATION_ERROR = AE_GENERIC_AUTHENTICATION_ERROR
GENERIC_AUTHORIZATION_ERROR = AE_GENERIC_AUTHORIZATION_ERROR
METADATA_AUTHENTICATION = AE_METADATA_AUTHENTICATION
METADATA_AUTHORIZATION = AE_METADATA_AUTHORIZATION
METADATA_DEVICE_ID = AE_METADATA_DEVICE_ID
METADATA_USER_META = AE_METADATA_USER_META
TRACKING_AUTHENTICATION = AE_TRACKING_AUTHENTICATION
TRACKING_AUTHORIZATION = AE_TRACKING_AUTHORIZATION
TRACKING_MVPD_SELECTION = AE_TRACKING_MVPD_SELECTION
