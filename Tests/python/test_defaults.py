# SPDX-License-Identifier: Apache-2.0
"""The defaults are the library's (Swift's `Defaults`, which a Swift test compares with the header's
text and with what ae_config_init resolves to): ae_config_init leaves every field at 0 / NULL, which
is "the default" (AE_CONFIG_INIT gives the same struct), the enumerations' 0 is their default
constant (AE_API_V2's 0 means "the default, AE_API_V2"), and the Python package's keyword defaults
are the same values, so a Python client gets the library's defaults."""
import ctypes
import inspect

from harness import ae

from accessenabler.partner import Partner

# ae_config fields whose 0 means "the library's default" (the header's "0: ..." comments).
ZERO_MEANS_DEFAULT = ["poll_interval_ms", "preauthorize_limit", "connect_timeout_ms", "request_timeout_ms",
                      "max_requests_per_second"]
# Enumerations and the value ae_config_init gives them: the header's "(default)" constants, which are 0
# (api_generation 0 means the default, AE_API_V2).
ENUM_DEFAULTS = {"api_generation": 0, "login_mode": ae.AE_LOGIN_SECOND_SCREEN, "log_level": ae.AE_LOG_ERROR,
                 "callback_mode": ae.AE_CALLBACKS_THREAD, "store_check": ae.AE_STORE_CHECK_QUICK,
                 "ca_mode": ae.AE_CA_WITH_SYSTEM, "min_tls_version": ae.AE_TLS_1_2, "proxy_from_environment": 0}


def initialised():
    config = ae.Config()
    assert ae.lib.ae_config_init(ctypes.byref(config), ae.AE_CONFIG_VERSION) == ae.AE_OK
    return config


def test_ae_config_init_sets_the_documented_defaults():
    config = initialised()
    assert config.version == ae.AE_CONFIG_VERSION
    for name in ZERO_MEANS_DEFAULT:
        assert getattr(config, name) == 0, name
    for name, value in ENUM_DEFAULTS.items():
        assert getattr(config, name) == value, name
    for name in ["software_statement", "base_url", "storage_path", "device_info_json", "device_id", "redirect_url",
                 "domain_name", "activation_url", "log", "log_user_data", "partner", "transport", "store_key",
                 "ca_file", "ca_path", "pinned_public_keys", "proxy"]:
        assert not getattr(config, name), name
    assert config.store_key_length == 0


def test_the_python_clients_defaults_are_the_libraries():
    config = initialised()
    parameters = inspect.signature(ae.Client.__init__).parameters
    for name in ZERO_MEANS_DEFAULT + list(ENUM_DEFAULTS):
        assert parameters[name].default == getattr(config, name), name
    for name in ["base_url", "storage_path", "device_id", "device_info", "redirect_url", "domain_name",
                 "activation_url", "partner", "transport", "store_key", "log", "ca_file", "ca_path",
                 "pinned_public_keys", "proxy"]:
        assert parameters[name].default is None, name
    assert Partner().timeout_ms == 0 and Partner().name is None  # the library's 60 s / 10 s and "Apple"
