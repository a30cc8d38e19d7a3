# SPDX-License-Identifier: Apache-2.0
"""accessenabler: a thin ctypes layer over libaccessenabler.so (Include/accessenabler.h).

Every function of the header is declared with argtypes/restype (Tests/python/test_bindings.py
checks them against the header, and the structs against the C compiler). Ownership follows the
header: strings passed in are copied by the library; strings handed to callbacks are borrowed
(this module copies them into Python str before the callback returns); owned strings returned by
the library (`char *`) come back as c_void_p and are freed with ae_string_free. Callback objects
(CFUNCTYPE) are kept alive on the Client for as long as the client exists; a Client that is
garbage-collected without close() is destroyed first, and the clients still open when the
interpreter exits are closed before it finalizes (an atexit handler, registered at import).

Library lookup, first found: $AE_LIBRARY (a path; an error if it is not a file); a copy bundled in
this package (libaccessenabler.so*, see ../pyproject.toml); the repository's release build
(.build/release/libaccessenabler.so, when this package is used from the source tree); the system's
(an installed package: libaccessenabler.so.<SOVERSION>, found by the dynamic loader).

Partner framework (platform TV-provider SSO): `Client(..., partner=obj)` takes an
`accessenabler.partner.Partner` (for tests, `accessenabler.partner.PartnerSimulator`); the Client
keeps the partner, its `PartnerFramework` struct and its callbacks alive.
"""
import atexit
import collections
import ctypes
import ctypes.util
import glob
import json
import os
import threading
import weakref

# --- status codes (append-only, as in the header) -----------------------------------------
AE_OK = 0
AE_E_INVALID_ARG = 1
AE_E_INVALID_HANDLE = 2
AE_E_UNSUPPORTED_VERSION = 3
AE_E_NO_REQUESTOR = 4
AE_E_STORAGE = 5
AE_E_INSECURE_URL = 6
AE_E_INTERNAL = 7
AE_E_STORE_KEY = 8
AE_E_QUEUE_FULL = 9  # 1.3: AE_MAX_QUEUED_CALLS calls already wait for setRequestor
AE_MAX_QUEUED_CALLS = 1000

# --- AccessEnabler constants -----------------------------------------------------------------
ACCESS_ENABLER_STATUS_ERROR = 0
ACCESS_ENABLER_STATUS_SUCCESS = 1
USER_AUTHENTICATED = ""
USER_NOT_AUTHENTICATED_ERROR = "User Not Authenticated Error"
USER_NOT_AUTHORIZED_ERROR = "User Not Authorized Error"
PROVIDER_NOT_SELECTED_ERROR = "Provider Not Selected Error"
GENERIC_AUTHENTICATION_ERROR = "Generic Authentication Error"
GENERIC_AUTHORIZATION_ERROR = "Generic Authorization Error"
METADATA_AUTHENTICATION = 0
METADATA_AUTHORIZATION = 1
METADATA_DEVICE_ID = 2
METADATA_USER_META = 3
TRACKING_AUTHENTICATION = 0
TRACKING_AUTHORIZATION = 1
TRACKING_MVPD_SELECTION = 2
AE_API_V1 = 1
AE_API_V2 = 2
AE_LOGIN_SECOND_SCREEN = 0
AE_LOGIN_BROWSER = 1
AE_LOG_ERROR, AE_LOG_WARNING, AE_LOG_INFO, AE_LOG_DEBUG = 0, 1, 2, 3
AE_CONFIG_VERSION = 6
AE_CA_WITH_SYSTEM, AE_CA_ONLY = 0, 1
AE_TLS_1_2, AE_TLS_1_3 = 0, 1
AE_IDENTITY_TOKEN_PLATFORM, AE_IDENTITY_TOKEN_SERVICE = 1, 2  # ae_client_set_identity_token (1.2)
AE_IDENTITY_REASON_NEEDED, AE_IDENTITY_REASON_EXPIRING, AE_IDENTITY_REASON_REFUSED = 0, 1, 2
AE_IDENTITY_PROVIDER_VERSION = 1
AE_STORE_CHECK_QUICK, AE_STORE_CHECK_NONE, AE_STORE_CHECK_ALL, AE_STORE_CHECK_CLEAR = 0, 1, 2, 3
AE_STORE_KEY_LENGTH = 32
AE_STORE_OPENED, AE_STORE_CREATED, AE_STORE_IN_MEMORY, AE_STORE_RECOVERED, AE_STORE_CLEARED, AE_STORE_UPGRADED = range(6)
AE_STORE_MODE_REPAIRED = 6  # the file (or its -wal/-shm) was open to group or others: set to 0600, records kept
AE_CALLBACKS_THREAD = 0
AE_CALLBACKS_EVENT_LOOP = 1
AE_HTTP_TRANSPORT_VERSION = 1
AE_HTTP_E_CANNOT_CONNECT, AE_HTTP_E_TIMEOUT, AE_HTTP_E_TLS, AE_HTTP_E_FAILED = 1, 2, 3, 4
AE_DELEGATE_VERSION = 1
AE_MAX_STRING_LENGTH = 65536

# --- partner framework (same values as the header) ----------------------------------------------
AE_PARTNER_FRAMEWORK_VERSION = 2
AE_PARTNER_ACCESS_NOT_DETERMINED = 0
AE_PARTNER_ACCESS_RESTRICTED = 1
AE_PARTNER_ACCESS_DENIED = 2
AE_PARTNER_ACCESS_GRANTED = 3
AE_PARTNER_SIGNED_IN_UNKNOWN = -1
AE_PARTNER_SIGNED_OUT = 0
AE_PARTNER_SIGNED_IN = 1
AE_PARTNER_E_UNSUPPORTED_PROVIDER = 1
AE_PARTNER_E_USER_CANCELLED = 2
AE_PARTNER_E_SERVICE_UNAVAILABLE = 3
AE_PARTNER_E_REJECTED = 4
AE_PARTNER_E_OTHER_PROVIDER = 5
AE_PARTNER_E_ACCESS_NOT_GRANTED = 6
AE_PARTNER_E_FAILED = 7
AE_PARTNER_E_TIMEOUT = 8

c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_int32 = ctypes.c_int32

LOG_FN = ctypes.CFUNCTYPE(None, c_int32, c_char_p, c_void_p)
PREAUTHORIZE_FN = ctypes.CFUNCTYPE(None, c_char_p, c_void_p)

# name → CFUNCTYPE, in the header's field order (after version and user_data)
_CALLBACKS = [
    ("set_requestor_complete", ctypes.CFUNCTYPE(None, c_int32, c_void_p)),
    ("set_authentication_status", ctypes.CFUNCTYPE(None, c_int32, c_char_p, c_void_p)),
    ("set_token", ctypes.CFUNCTYPE(None, c_char_p, c_char_p, c_void_p)),
    ("token_request_failed", ctypes.CFUNCTYPE(None, c_char_p, c_char_p, c_char_p, c_void_p)),
    ("selected_provider", ctypes.CFUNCTYPE(None, c_char_p, c_void_p)),
    ("display_provider_dialog", ctypes.CFUNCTYPE(None, c_char_p, c_void_p)),
    ("navigate_to_url", ctypes.CFUNCTYPE(None, c_char_p, c_void_p)),
    ("send_tracking_data", ctypes.CFUNCTYPE(None, c_int32, c_char_p, c_void_p)),
    ("set_metadata_status", ctypes.CFUNCTYPE(None, c_char_p, c_int32, c_int32, c_char_p, c_void_p)),
    ("preauthorized_resources", ctypes.CFUNCTYPE(None, c_char_p, c_void_p)),
    ("present_tv_provider_dialog", ctypes.CFUNCTYPE(None, c_char_p, c_void_p)),
    ("dismiss_tv_provider_dialog", ctypes.CFUNCTYPE(None, c_char_p, c_void_p)),
    ("status", ctypes.CFUNCTYPE(None, c_char_p, c_void_p)),
]
CALLBACK_TYPES = dict(_CALLBACKS)

# ae_partner_request * is opaque (a number, never an address): c_void_p, passed back unchanged.
PARTNER_CHECK_ACCESS_STATUS_FN = ctypes.CFUNCTYPE(None, c_int32, c_void_p, c_void_p)
PARTNER_ENQUEUE_METADATA_REQUEST_FN = ctypes.CFUNCTYPE(None, c_char_p, c_void_p, c_void_p)
PARTNER_CANCEL_REQUEST_FN = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)


class PartnerFramework(ctypes.Structure):
    """ae_partner_framework."""

    _fields_ = [
        ("version", ctypes.c_uint32),
        ("user_data", c_void_p),
        ("name", c_char_p),
        ("timeout_ms", c_int32),
        ("check_access_status", PARTNER_CHECK_ACCESS_STATUS_FN),
        ("enqueue_metadata_request", PARTNER_ENQUEUE_METADATA_REQUEST_FN),
        # version 2
        ("cancel_request", PARTNER_CANCEL_REQUEST_FN),
    ]


HTTP_SEND_FN = ctypes.CFUNCTYPE(None, c_char_p, c_char_p, ctypes.POINTER(c_char_p), ctypes.POINTER(ctypes.c_uint8),
                                ctypes.c_size_t, c_int32, c_void_p, c_void_p)
HTTP_CANCEL_FN = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)


class HttpTransport(ctypes.Structure):
    """ae_http_transport."""

    _fields_ = [
        ("version", ctypes.c_uint32),
        ("user_data", c_void_p),
        ("send", HTTP_SEND_FN),
        ("cancel", HTTP_CANCEL_FN),
    ]


# ae_identity_request * is opaque too.
IDENTITY_REQUEST_TOKEN_FN = ctypes.CFUNCTYPE(None, c_int32, c_int32, c_void_p, c_void_p)
IDENTITY_CANCEL_REQUEST_FN = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)


class IdentityProviderStruct(ctypes.Structure):
    """ae_identity_provider (1.2)."""

    _fields_ = [
        ("version", ctypes.c_uint32),
        ("user_data", c_void_p),
        ("timeout_ms", c_int32),
        ("platform_identity", c_int32),
        ("service_token", c_int32),
        ("request_token", IDENTITY_REQUEST_TOKEN_FN),
        ("cancel_request", IDENTITY_CANCEL_REQUEST_FN),
    ]


class IdentityRequest:
    """A pending token request: `reply(token)` (str, bytes or None for none) from any thread, once."""

    def __init__(self, handle, kind, reason):
        self.handle, self.kind, self.reason = handle, kind, reason

    def reply(self, token):
        return lib.ae_identity_request_reply(self.handle, _encode(token))


class Config(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("software_statement", c_char_p),
        ("base_url", c_char_p),
        ("api_generation", c_int32),
        ("storage_path", c_char_p),
        ("device_info_json", c_char_p),
        ("device_id", c_char_p),
        ("redirect_url", c_char_p),
        ("domain_name", c_char_p),
        ("activation_url", c_char_p),
        ("login_mode", c_int32),
        ("poll_interval_ms", c_int32),
        ("preauthorize_limit", c_int32),
        ("connect_timeout_ms", c_int32),
        ("request_timeout_ms", c_int32),
        ("max_requests_per_second", c_int32),
        ("log", LOG_FN),
        ("log_user_data", c_void_p),
        ("log_level", c_int32),
        # version 2
        ("partner", ctypes.POINTER(PartnerFramework)),
        ("callback_mode", c_int32),
        ("transport", ctypes.POINTER(HttpTransport)),
        # version 4
        ("store_key", ctypes.POINTER(ctypes.c_uint8)),
        ("store_key_length", ctypes.c_size_t),
        ("store_check", c_int32),
        # version 5 (1.1): TLS and proxy
        ("ca_file", c_char_p),
        ("ca_path", c_char_p),
        ("pinned_public_keys", c_char_p),
        ("proxy", c_char_p),
        ("ca_mode", c_int32),
        ("min_tls_version", c_int32),
        ("proxy_from_environment", c_int32),
        # version 6 (1.2): single sign-on tokens on request
        ("identity", ctypes.POINTER(IdentityProviderStruct)),
    ]


class Delegate(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("user_data", c_void_p)] + _CALLBACKS


def _find_library():
    """The library to load (see the module's docstring); ImportError naming what was tried."""
    path = os.environ.get("AE_LIBRARY")
    if path:
        if not os.path.isfile(path):
            raise ImportError(f"AE_LIBRARY={path!r} is not a file (point it at libaccessenabler.so)")
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = sorted(glob.glob(os.path.join(here, "libaccessenabler.so*")))
    source_tree = os.path.join(here, "..", "..", ".build", "release", "libaccessenabler.so")
    for candidate in bundled + [source_tree]:
        if os.path.isfile(candidate):
            return candidate
    system = ctypes.util.find_library("accessenabler")
    if system:
        return system
    raise ImportError("libaccessenabler.so not found: set AE_LIBRARY to its path, bundle it in the package "
                      "(Python/pyproject.toml), or install it (cmake --install)")


lib = ctypes.CDLL(_find_library())
LIBRARY_PATH = lib._name

_CLIENT = c_void_p  # ae_client * (opaque)
_SIGNATURES = {
    "ae_version_string": (c_char_p, []),
    "ae_version_number": (c_int32, []),
    "ae_status_string": (c_char_p, [c_int32]),
    "ae_last_error_message": (c_void_p, []),  # owned: c_void_p keeps the pointer for ae_string_free
    "ae_string_free": (None, [c_void_p]),
    "ae_config_init": (c_int32, [ctypes.POINTER(Config), ctypes.c_uint32]),
    "ae_delegate_init": (c_int32, [ctypes.POINTER(Delegate), ctypes.c_uint32]),
    "ae_client_create": (c_int32, [ctypes.POINTER(Config), ctypes.POINTER(Delegate), ctypes.POINTER(_CLIENT)]),
    "ae_client_destroy": (None, [_CLIENT]),
    "ae_set_options": (c_int32, [_CLIENT, c_char_p]),
    "ae_client_set_identity_token": (c_int32, [_CLIENT, c_int32, c_char_p]),
    "ae_identity_provider_init": (c_int32, [ctypes.POINTER(IdentityProviderStruct), ctypes.c_uint32]),
    "ae_identity_request_reply": (c_int32, [c_void_p, c_char_p]),
    "ae_set_requestor": (c_int32, [_CLIENT, c_char_p, c_char_p]),
    "ae_check_authentication": (c_int32, [_CLIENT]),
    "ae_get_authentication": (c_int32, [_CLIENT, c_int32, c_char_p, c_char_p]),
    "ae_set_selected_provider": (c_int32, [_CLIENT, c_char_p]),
    "ae_get_selected_provider": (c_int32, [_CLIENT]),
    "ae_check_authorization": (c_int32, [_CLIENT, c_char_p, c_char_p]),
    "ae_get_authorization": (c_int32, [_CLIENT, c_char_p, c_char_p]),
    "ae_check_preauthorized_resources": (c_int32, [_CLIENT, c_char_p, c_int32]),
    "ae_get_metadata": (c_int32, [_CLIENT, c_char_p]),
    "ae_logout": (c_int32, [_CLIENT]),
    "ae_handle_external_url": (c_int32, [_CLIENT, c_char_p]),
    "ae_preauthorize": (c_int32, [_CLIENT, c_char_p, PREAUTHORIZE_FN, c_void_p]),
    "ae_client_event_fd": (ctypes.c_int, [_CLIENT]),
    "ae_client_dispatch": (c_int32, [_CLIENT, ctypes.POINTER(c_int32)]),
    "ae_client_store_status": (c_int32, [_CLIENT, ctypes.POINTER(c_int32)]),
    "ae_http_transport_init": (c_int32, [ctypes.POINTER(HttpTransport), ctypes.c_uint32]),
    "ae_http_request_reply": (c_int32, [c_void_p, c_int32, ctypes.POINTER(c_char_p), ctypes.POINTER(ctypes.c_uint8),
                                ctypes.c_size_t]),
    "ae_http_request_reply_error": (c_int32, [c_void_p, c_int32, c_char_p]),
}
for _name, (_restype, _argtypes) in _SIGNATURES.items():
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes

# The partner functions are declared when the library has them: a library built before the
# partner framework still loads, and only Client(partner=...) is refused.
_PARTNER_SIGNATURES = {
    "ae_partner_framework_init": (c_int32, [ctypes.POINTER(PartnerFramework), ctypes.c_uint32]),
    "ae_partner_request_reply_access_status": (c_int32, [c_void_p, c_int32, c_int32]),
    "ae_partner_request_reply_metadata": (c_int32, [c_void_p, c_char_p]),
    "ae_partner_request_reply_error": (c_int32, [c_void_p, c_int32, c_char_p]),
}
HAS_PARTNER_FRAMEWORK = all(hasattr(lib, _name) for _name in _PARTNER_SIGNATURES)
if HAS_PARTNER_FRAMEWORK:
    for _name, (_restype, _argtypes) in _PARTNER_SIGNATURES.items():
        _function = getattr(lib, _name)
        _function.restype = _restype
        _function.argtypes = _argtypes


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


def version():
    return lib.ae_version_string().decode()


def _encode(value):
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    return json.dumps(value).encode()


def _text(pointer):
    return None if pointer is None else pointer.decode()


def _json(pointer):
    return None if pointer is None else json.loads(pointer.decode())


_RETIRED = collections.deque(maxlen=8)  # callbacks of recently closed clients (see Client.close)

# --- process exit ----------------------------------------------------------------------------
# The clients still open when the interpreter exits are closed by an atexit handler, registered at
# import: atexit handlers run while the interpreter is still whole, before it finalizes. Without it
# the SDK's threads went on calling the clients' callbacks (ctypes takes the GIL) while the
# interpreter was being torn down, and their requests went on inside OpenSSL while its own atexit
# handler freed it (when the interpreter had initialised OpenSSL first: `import ssl`): the process
# could end with SIGSEGV. Then the hooks (accessenabler.transport's: its requests' threads).
_OPEN_CLIENTS = weakref.WeakSet()
_EXIT_HOOKS = []


def _close_at_exit():
    for client in list(_OPEN_CLIENTS):
        try:
            client.close()
        except Exception:  # noqa: BLE001 - exiting: the others still get closed
            pass
    for hook in _EXIT_HOOKS:
        hook()


atexit.register(_close_at_exit)


class Client:
    """One AccessEnabler client. `delegate` is any object with methods named like the header's
    callbacks (set_requestor_complete(status), set_token(token, resource), status(dict), ...);
    missing methods are not registered. JSON arguments arrive decoded."""

    def __init__(self, software_statement, delegate, base_url=None, storage_path=None, device_id=None,
                 device_info=None, redirect_url=None, domain_name=None, activation_url=None,
                 login_mode=AE_LOGIN_SECOND_SCREEN, poll_interval_ms=0, preauthorize_limit=0,
                 connect_timeout_ms=0, request_timeout_ms=0, max_requests_per_second=0,
                 log=None, log_level=AE_LOG_ERROR, partner=None, callback_mode=AE_CALLBACKS_THREAD,
                 transport=None, store_key=None, store_check=AE_STORE_CHECK_QUICK, api_generation=0,
                 ca_file=None, ca_path=None, ca_mode=AE_CA_WITH_SYSTEM, pinned_public_keys=None,
                 min_tls_version=AE_TLS_1_2, proxy=None, proxy_from_environment=False, identity_provider=None):
        self._keep = []
        config = Config()
        check(lib.ae_config_init(ctypes.byref(config), AE_CONFIG_VERSION))
        config.software_statement = _encode(software_statement)
        if api_generation:  # AE_API_V1 or AE_API_V2; 0 keeps the library's default (V2)
            config.api_generation = api_generation
        config.base_url = _encode(base_url)
        config.storage_path = _encode(storage_path)
        config.device_id = _encode(device_id)
        config.device_info_json = _encode(device_info)
        config.redirect_url = _encode(redirect_url)
        config.domain_name = _encode(domain_name)
        config.activation_url = _encode(activation_url)
        config.login_mode = login_mode
        config.poll_interval_ms = poll_interval_ms
        config.preauthorize_limit = preauthorize_limit
        config.connect_timeout_ms = connect_timeout_ms
        config.request_timeout_ms = request_timeout_ms
        config.max_requests_per_second = max_requests_per_second
        config.log_level = log_level
        if log is not None:
            log_fn = LOG_FN(lambda level, message, _: log(level, message.decode()))
            self._keep.append(log_fn)
            config.log = log_fn
        if partner is not None:
            self._set_partner(config, partner)
        if identity_provider is not None:
            self._set_identity_provider(config, identity_provider)
        config.callback_mode = callback_mode
        if transport is not None:
            framework = transport.framework()  # accessenabler.transport.Transport
            self._keep.extend([transport, framework])
            config.transport = ctypes.pointer(framework)
        if store_key is not None:  # bytes (AE_STORE_KEY_LENGTH of them)
            key = (ctypes.c_uint8 * len(store_key)).from_buffer_copy(store_key)
            self._keep.append(key)
            config.store_key = ctypes.cast(key, ctypes.POINTER(ctypes.c_uint8))
            config.store_key_length = len(store_key)
        config.store_check = store_check
        # TLS and proxy (ae_config version 5): pinned_public_keys is a "sha256//..." string or a list of them.
        config.ca_file = _encode(ca_file)
        config.ca_path = _encode(ca_path)
        config.ca_mode = ca_mode
        if pinned_public_keys is not None and not isinstance(pinned_public_keys, str):
            pinned_public_keys = ";".join(pinned_public_keys)
        config.pinned_public_keys = _encode(pinned_public_keys)
        config.min_tls_version = min_tls_version
        config.proxy = _encode(proxy)
        config.proxy_from_environment = 1 if proxy_from_environment else 0
        table = Delegate()
        check(lib.ae_delegate_init(ctypes.byref(table), AE_DELEGATE_VERSION))
        for name, kind in _CALLBACKS:
            handler = getattr(delegate, name, None)
            if handler is None:
                continue
            function = kind(self._adapter(name, handler))
            self._keep.append(function)
            setattr(table, name, function)
        self._handle = _CLIENT()
        check(lib.ae_client_create(ctypes.byref(config), ctypes.byref(table), ctypes.byref(self._handle)))
        _OPEN_CLIENTS.add(self)
        self._preauthorize_lock = threading.Lock()
        self._preauthorize_pending = {}
        self._preauthorize_retired = None

    def _set_partner(self, config, partner):
        """`partner`: an accessenabler.partner.Partner (or a ready PartnerFramework struct)."""
        if not HAS_PARTNER_FRAMEWORK or config.version < 2:
            raise AEError(AE_E_UNSUPPORTED_VERSION,
                          f"this library has no partner framework (ae_config version {config.version})")
        framework = partner if isinstance(partner, PartnerFramework) else partner.framework()
        self._keep.extend([partner, framework])  # the struct's callbacks live as long as the client
        config.partner = ctypes.pointer(framework)

    def _set_identity_provider(self, config, provider):
        """`provider`: an object with `kinds` (a set of AE_IDENTITY_TOKEN_*), optional `timeout_ms`,
        `request_token(kind, reason, request)` (answer with request.reply(token or None), now or later,
        from any thread) and optional `cancel_request(request_handle)`."""
        table = IdentityProviderStruct()
        check(lib.ae_identity_provider_init(ctypes.byref(table), AE_IDENTITY_PROVIDER_VERSION))
        kinds = set(getattr(provider, "kinds", ()))
        table.platform_identity = 1 if AE_IDENTITY_TOKEN_PLATFORM in kinds else 0
        table.service_token = 1 if AE_IDENTITY_TOKEN_SERVICE in kinds else 0
        table.timeout_ms = getattr(provider, "timeout_ms", 0)

        def request_token(kind, reason, handle, _):
            request = IdentityRequest(handle, kind, reason)
            try:
                provider.request_token(kind, reason, request)
            except Exception:  # an exception must not cross the C boundary: answer "none"
                request.reply(None)

        table.request_token = IDENTITY_REQUEST_TOKEN_FN(request_token)
        if hasattr(provider, "cancel_request"):
            table.cancel_request = IDENTITY_CANCEL_REQUEST_FN(lambda handle, _: provider.cancel_request(handle))
        self._keep.extend([provider, table])
        config.identity = ctypes.pointer(table)

    @staticmethod
    def _adapter(name, handler):
        """Decodes the C arguments of callback `name` (copies: they are borrowed)."""
        decoders = {
            "set_requestor_complete": lambda status, _: handler(status),
            "set_authentication_status": lambda status, code, _: handler(status, _text(code)),
            "set_token": lambda token, resource, _: handler(_text(token), _text(resource)),
            "token_request_failed": lambda resource, code, description, _: handler(
                _text(resource), _text(code), _text(description)),
            "selected_provider": lambda mvpd, _: handler(_json(mvpd)),
            "display_provider_dialog": lambda mvpds, _: handler(_json(mvpds)),
            "navigate_to_url": lambda url, _: handler(_text(url)),
            "send_tracking_data": lambda event, data, _: handler(event, _json(data)),
            "set_metadata_status": lambda metadata, encrypted, key, arguments, _: handler(
                _json(metadata), bool(encrypted), key, _json(arguments)),
            "preauthorized_resources": lambda resources, _: handler(_json(resources)),
            "present_tv_provider_dialog": lambda dialog, _: handler(_json(dialog)),
            "dismiss_tv_provider_dialog": lambda dialog, _: handler(_json(dialog)),
            "status": lambda status, _: handler(_json(status)),
        }
        return decoders[name]

    @property
    def handle(self):
        return self._handle

    def event_fd(self):
        """Event-loop mode: the descriptor that is readable while callbacks are queued."""
        fd = lib.ae_client_event_fd(self._handle)
        if fd < 0:
            raise AEError(AE_E_INVALID_ARG, last_error_message())
        return fd

    def store_status(self):
        """How create found the token store: one of AE_STORE_*."""
        status = c_int32()
        check(lib.ae_client_store_status(self._handle, ctypes.byref(status)))
        return status.value

    def dispatch(self):
        """Event-loop mode: runs the queued callbacks on this thread; returns how many ran."""
        count = c_int32()
        check(lib.ae_client_dispatch(self._handle, ctypes.byref(count)))
        return count.value

    def close(self):
        """ae_client_destroy; afterwards no callback runs. Idempotent."""
        if getattr(self, "_handle", None):
            lib.ae_client_destroy(self._handle)
            self._handle = _CLIENT()
            _OPEN_CLIENTS.discard(self)
            # Called from inside a callback, destroy returns while that callback still runs on a
            # CFUNCTYPE of ours: keep the callbacks a little longer than this object.
            _RETIRED.append(self._keep)

    def __del__(self):
        # The callbacks die with this object: the client must go first (destroy waits for a
        # running callback, and returns at once when called from one).
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown: the module may be half torn down
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- the AccessEnabler calls (raise AEError when refused) ------------------------------
    def set_options(self, options):
        check(lib.ae_set_options(self._handle, _encode(options)))

    def set_identity_token(self, kind, token):
        """ae_client_set_identity_token: the platform's (AE_IDENTITY_TOKEN_PLATFORM) or the identity
        service's (AE_IDENTITY_TOKEN_SERVICE) single sign-on token, str or bytes; None clears it. A
        malformed, expired or unsigned (`alg: none`) token raises AEError(AE_E_INVALID_ARG)."""
        check(lib.ae_client_set_identity_token(self._handle, kind, _encode(token)))

    def set_requestor(self, requestor_id, service_providers=None):
        check(lib.ae_set_requestor(self._handle, _encode(requestor_id), _encode(service_providers)))

    def check_authentication(self):
        check(lib.ae_check_authentication(self._handle))

    def get_authentication(self, force_authn=False, data=None, filter=None):
        check(lib.ae_get_authentication(self._handle, 1 if force_authn else 0, _encode(data), _encode(filter)))

    def set_selected_provider(self, mvpd_id):
        check(lib.ae_set_selected_provider(self._handle, _encode(mvpd_id)))

    def get_selected_provider(self):
        check(lib.ae_get_selected_provider(self._handle))

    def check_authorization(self, resource, data=None):
        check(lib.ae_check_authorization(self._handle, _encode(resource), _encode(data)))

    def get_authorization(self, resource, data=None):
        check(lib.ae_get_authorization(self._handle, _encode(resource), _encode(data)))

    def check_preauthorized_resources(self, resources, cache=True):
        check(lib.ae_check_preauthorized_resources(self._handle, _encode(resources), 1 if cache else 0))

    def get_metadata(self, key):
        check(lib.ae_get_metadata(self._handle, _encode(key)))

    def logout(self):
        check(lib.ae_logout(self._handle))

    def handle_external_url(self, url):
        check(lib.ae_handle_external_url(self._handle, _encode(url)))

    def preauthorize(self, request, callback):
        """callback(response_dict) runs once on the callback thread."""
        entry = {}

        def done(response, _):
            # Callbacks run one at a time on one thread: when this one runs, the previously
            # retired thunk has returned and may be released; this one is retired in its place.
            with self._preauthorize_lock:
                self._preauthorize_pending.pop(id(entry), None)
                self._preauthorize_retired = entry.get("function")
            callback(_json(response))

        function = PREAUTHORIZE_FN(done)
        entry["function"] = function
        with self._preauthorize_lock:
            self._preauthorize_pending[id(entry)] = entry
        status = lib.ae_preauthorize(self._handle, _encode(request), function, None)
        if status != AE_OK:
            with self._preauthorize_lock:
                self._preauthorize_pending.pop(id(entry), None)
        check(status)
