# SPDX-License-Identifier: Apache-2.0
"""Client: one AccessEnabler client (ae_client_create ... ae_client_destroy) and its callbacks.

Ownership follows the header: strings passed in are copied by the library; strings handed to
callbacks are borrowed (this module copies them into Python str before the callback returns).
Callback objects (CFUNCTYPE) are kept alive on the Client for as long as the client exists; a Client
that is garbage-collected without close() is destroyed first, and the clients still open when the
interpreter exits are closed before it finalizes (an atexit handler, registered at import).
"""
import atexit
import collections
import ctypes
import json
import threading
import weakref

from ._abi import (_CALLBACKS, _CLIENT, AE_CA_WITH_SYSTEM, AE_CALLBACKS_THREAD, AE_CONFIG_VERSION,
                   AE_DELEGATE_VERSION, AE_E_INVALID_ARG, AE_E_UNSUPPORTED_VERSION, AE_IDENTITY_PROVIDER_VERSION,
                   AE_IDENTITY_TOKEN_PLATFORM, AE_IDENTITY_TOKEN_SERVICE, AE_LOG_ERROR, AE_LOGIN_SECOND_SCREEN, AE_OK,
                   AE_STORE_CHECK_QUICK, AE_TLS_1_2, IDENTITY_CANCEL_REQUEST_FN, IDENTITY_REQUEST_TOKEN_FN, LOG_FN,
                   PREAUTHORIZE_FN, Config, Delegate, IdentityProviderStruct, PartnerFramework, c_int32)
from ._library import HAS_PARTNER_FRAMEWORK, lib
from .errors import AEError, check, last_error_message


class IdentityRequest:
    """A pending token request: `reply(token)` (str, bytes or None for none) from any thread, once."""

    def __init__(self, handle, kind, reason):
        self.handle, self.kind, self.reason = handle, kind, reason

    def reply(self, token):
        return lib.ae_identity_request_reply(self.handle, _encode(token))


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
        """ae_set_identity_token: the platform's (AE_IDENTITY_TOKEN_PLATFORM) or the identity
        service's (AE_IDENTITY_TOKEN_SERVICE) single sign-on token, str or bytes; None clears it. A
        malformed, expired or unsigned (`alg: none`) token raises AEError(AE_E_INVALID_ARG)."""
        check(lib.ae_set_identity_token(self._handle, kind, _encode(token)))

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
