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
                   AE_METRIC_COUNTER, AE_METRIC_GAUGE, AE_METRIC_HISTOGRAM, AE_METRICS_JSON, AE_METRICS_PROMETHEUS,
                   AE_STORE_CHECK_QUICK, AE_TLS_1_2, IDENTITY_CANCEL_REQUEST_FN, IDENTITY_REQUEST_TOKEN_FN, LOG_FN,
                   METRIC_FN, METRICS_PUSH_FN, PREAUTHORIZE_FN, Config, Delegate, IdentityProviderStruct, Metric,
                   PartnerFramework, c_int32)
from ._library import HAS_PARTNER_FRAMEWORK, lib
from .errors import AEError, check, last_error_message


class IdentityRequest:
    """A pending token request: `reply(token)` (str, bytes or None for none) from any thread, once."""

    def __init__(self, handle, kind, reason):
        self.handle, self.kind, self.reason = handle, kind, reason

    def reply(self, token):
        """ae_identity_request_reply: the token (checked as set_identity_token checks it), or None to go on
        without single sign-on of that kind. Returns the status (AE_OK; AE_E_INVALID_HANDLE once answered)."""
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
    missing methods are not registered. JSON arguments arrive decoded. The AccessEnabler calls return
    at once and raise AEError when the library refuses them (then no callback follows)."""

    def __init__(self, software_statement, delegate, base_url=None, storage_path=None, device_id=None,
                 device_info=None, redirect_url=None, domain_name=None, activation_url=None,
                 login_mode=AE_LOGIN_SECOND_SCREEN, poll_interval_ms=0, preauthorize_limit=0,
                 connect_timeout_ms=0, request_timeout_ms=0, max_requests_per_second=0,
                 log=None, log_level=AE_LOG_ERROR, partner=None, callback_mode=AE_CALLBACKS_THREAD,
                 transport=None, store_key=None, store_check=AE_STORE_CHECK_QUICK, api_generation=0,
                 ca_file=None, ca_path=None, ca_mode=AE_CA_WITH_SYSTEM, pinned_public_keys=None,
                 min_tls_version=AE_TLS_1_2, proxy=None, proxy_from_environment=False, identity_provider=None):
        """ae_client_create: opens (or creates) the token store, no network. Each keyword is the ae_config
        field of its name (device_info: device_info_json; identity_provider: identity). AEError if refused."""
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
        """The ae_client handle, for calls through accessenabler.lib; NULL once closed."""
        return self._handle

    def event_fd(self):
        """ae_client_event_fd (event-loop mode): the descriptor that is readable while callbacks are
        queued; watch it for POLLIN and call dispatch(). The SDK owns it: do not read from or close it."""
        fd = lib.ae_client_event_fd(self._handle)
        if fd < 0:
            raise AEError(AE_E_INVALID_ARG, last_error_message())
        return fd

    def store_status(self):
        """ae_client_store_status: how create found the token store, one of AE_STORE_* (after
        AE_STORE_RECOVERED the viewer must log in again)."""
        status = c_int32()
        check(lib.ae_client_store_status(self._handle, ctypes.byref(status)))
        return status.value

    def dispatch(self):
        """ae_client_dispatch (event-loop mode): runs the callbacks queued when it starts (at most
        AE_DISPATCH_MAX_CALLBACKS), in order, on this thread; returns how many ran."""
        count = c_int32()
        check(lib.ae_client_dispatch(self._handle, ctypes.byref(count)))
        return count.value

    def close(self):
        """ae_client_destroy: cancels the client's requests; afterwards no callback runs. Idempotent."""
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
        """ae_set_options (setOptions): a dict such as {"applicationProfile": ..., "visitorID": ...,
        "deviceIdMetadata": True}, for the requests that start after it. No callback."""
        check(lib.ae_set_options(self._handle, _encode(options)))

    def set_identity_token(self, kind, token):
        """ae_set_identity_token: the platform's (AE_IDENTITY_TOKEN_PLATFORM) or the identity
        service's (AE_IDENTITY_TOKEN_SERVICE) single sign-on token, str or bytes; None clears it. A
        malformed, expired or unsigned (`alg: none`) token raises AEError(AE_E_INVALID_ARG)."""
        check(lib.ae_set_identity_token(self._handle, kind, _encode(token)))

    def set_requestor(self, requestor_id, service_providers=None):
        """ae_set_requestor (setRequestor): registers the app and syncs the requestor's configuration and
        profiles when needed; calls made meanwhile wait for it. Callback: set_requestor_complete(status)."""
        check(lib.ae_set_requestor(self._handle, _encode(requestor_id), _encode(service_providers)))

    def check_authentication(self):
        """ae_check_authentication (checkAuthentication): from the stored profile, no network. Callback:
        set_authentication_status(1, "") or (0, USER_NOT_AUTHENTICATED_ERROR), then send_tracking_data."""
        check(lib.ae_check_authentication(self._handle))

    def get_authentication(self, force_authn=False, data=None, filter=None):
        """ae_get_authentication (getAuthentication): set_authentication_status(1, "") at once when
        authenticated (and not force_authn), else display_provider_dialog(mvpds), which the host answers
        with set_selected_provider(). `data`: the viewer's identity for promotional TempPass; `filter`:
        the partner picker's {"TV_PROVIDERS": [...], "FEATURED_TV_PROVIDERS": [...]}."""
        check(lib.ae_get_authentication(self._handle, 1 if force_authn else 0, _encode(data), _encode(filter)))

    def set_selected_provider(self, mvpd_id):
        """ae_set_selected_provider (setSelectedProvider): the viewer's MVPD "ID" starts its login (second
        screen: a status REGCODE with the code and URL to show, then set_authentication_status); None cancels."""
        check(lib.ae_set_selected_provider(self._handle, _encode(mvpd_id)))

    def get_selected_provider(self):
        """ae_get_selected_provider (getSelectedProvider). Callback: selected_provider(the MVPD, or None)."""
        check(lib.ae_get_selected_provider(self._handle))

    def check_authorization(self, resource, data=None):
        """ae_check_authorization (checkAuthorization): as get_authorization, but when the viewer is not
        authenticated it fails at once (token_request_failed, USER_NOT_AUTHENTICATED_ERROR), no login."""
        check(lib.ae_check_authorization(self._handle, _encode(resource), _encode(data)))

    def get_authorization(self, resource, data=None):
        """ae_get_authorization (getAuthorization): the decision for `resource` (an id or MRSS text):
        set_token(token, resource) or token_request_failed(resource, code, description), then
        send_tracking_data; it logs the viewer in first (getAuthentication's callbacks) when needed."""
        check(lib.ae_get_authorization(self._handle, _encode(resource), _encode(data)))

    def check_preauthorized_resources(self, resources, cache=True):
        """ae_check_preauthorized_resources (checkPreauthorizedResources): which of `resources` (a list of
        ids) the viewer may watch, for UI decoration only. Callback: preauthorized_resources(list), once."""
        check(lib.ae_check_preauthorized_resources(self._handle, _encode(resources), 1 if cache else 0))

    def get_metadata(self, key):
        """ae_get_metadata (getMetadata): `key` is {"opCode": METADATA_*, "resource_id": ... (opcode 1),
        "user_metadata_name": ... (opcode 3)}. Callback: set_metadata_status(value, encrypted, key, arguments)."""
        check(lib.ae_get_metadata(self._handle, _encode(key)))

    def logout(self):
        """ae_logout (logout): removes the local profile (even when Adobe cannot be reached) and tells Adobe.
        Callback: a status LOGOUT when the MVPD has a logout page, then set_authentication_status(0, ...)."""
        check(lib.ae_logout(self._handle))

    def handle_external_url(self, url):
        """ae_handle_external_url (handleExternalURL): the redirect URL the host's browser reached (browser
        login mode); the SDK completes the pending login. Callback: set_authentication_status."""
        check(lib.ae_handle_external_url(self._handle, _encode(url)))

    def preauthorize(self, request, callback):
        """ae_preauthorize: `request` is {"resources": [...], "disableFeatures": [...]?}. callback(response_dict)
        runs exactly once, on the callback thread (in dispatch() in event-loop mode), or in close() with the
        enhanced error "client_destroyed" when the client is closed before the answer."""
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

    # --- metrics (docs/METRICS.md) -------------------------------------------------------------

    _METRIC_KINDS = {AE_METRIC_COUNTER: "counter", AE_METRIC_GAUGE: "gauge", AE_METRIC_HISTOGRAM: "histogram"}

    def metrics(self):
        """ae_client_metrics: every series now, as dicts {"name", "type" ("counter", "gauge", "histogram"),
        "unit", "labels" {name: value, "" values left out}, "value", "count", "buckets" [(upper_bound,
        cumulative_count), ...]}, in docs/METRICS.md's order."""
        series = []

        def visit(address, _):
            metric = ctypes.cast(address, ctypes.POINTER(Metric)).contents
            labels = {metric.label_names[i].decode(): metric.label_values[i].decode()
                      for i in range(metric.label_count)}
            series.append({
                "name": metric.name.decode(), "type": self._METRIC_KINDS[metric.type], "unit": metric.unit.decode(),
                "labels": {name: value for name, value in labels.items() if value},
                "value": metric.value, "count": metric.count,
                "buckets": [(metric.bucket_bounds[i], metric.bucket_counts[i]) for i in range(metric.bucket_count)],
            })

        check(lib.ae_client_metrics(self._handle, METRIC_FN(visit), None))
        return series

    def metrics_text(self, format="prometheus"):
        """ae_client_metrics_text: the metrics as Prometheus text exposition ("prometheus") or JSON text ("json")."""
        formats = {"prometheus": AE_METRICS_PROMETHEUS, "json": AE_METRICS_JSON}
        if format not in formats:
            raise ValueError(f"format must be one of {sorted(formats)}")
        out = ctypes.c_void_p()
        check(lib.ae_client_metrics_text(self._handle, formats[format], ctypes.byref(out)))
        try:
            return ctypes.string_at(out.value).decode()
        finally:
            lib.ae_string_free(out.value)

    def set_metrics_push(self, interval_ms, push):
        """ae_client_set_metrics_push: push(client) every interval_ms (at least AE_METRICS_PUSH_MIN_MS) on the
        callback thread (in dispatch() in event-loop mode); it may call metrics() or metrics_text(). None stops."""
        if push is None:
            check(lib.ae_client_set_metrics_push(self._handle, 0, METRICS_PUSH_FN(), None))
            return
        client = weakref.ref(self)  # the thunk is kept by the client: no cycle through it
        function = METRICS_PUSH_FN(lambda _handle, _: push(client()) if client() is not None else None)
        check(lib.ae_client_set_metrics_push(self._handle, interval_ms, function, None))
        self._keep.append(function)  # called until replaced, stopped or closed: it lives as long as the client
