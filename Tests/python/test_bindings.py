# SPDX-License-Identifier: Apache-2.0
"""The ctypes module against the header: every AE_API function declared with the argtypes and
restype its C declaration asks for, every struct laid out as the C compiler lays it out, every constant
with the header's value, owned strings freed, callbacks kept alive for the client's lifetime, and the
package metadata. The header is read by scripts/gen-python-bindings.py's parser, the one that generates
accessenabler/_abi.py (the package's declarations); the types expected here are this test's own."""
import ast
import ctypes
import gc
import importlib.metadata
import importlib.util
import queue
import re
import subprocess
import sys
import tomllib

import pytest

from harness import ROOT, SOFTWARE_STATEMENT, ae

HEADER = (ROOT / "Include/accessenabler.h").read_text()
_spec = importlib.util.spec_from_file_location("gen_python_bindings", ROOT / "scripts/gen-python-bindings.py")
bindings = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bindings)

# C type (as written in the header, spaces normalised) → the ctypes type the module must declare.
# Returned `char *` strings are owned by the caller: c_void_p keeps the pointer for ae_string_free
# (with c_char_p ctypes would copy the text and lose the pointer: a leak).
ARGUMENT_TYPES = {
    "int32_t": ctypes.c_int32,
    "uint32_t": ctypes.c_uint32,
    "int": ctypes.c_int,
    "size_t": ctypes.c_size_t,
    "const char *": ctypes.c_char_p,
    "char *": ctypes.c_void_p,
    "char **": ctypes.POINTER(ctypes.c_void_p),
    "const char *const *": ctypes.POINTER(ctypes.c_char_p),
    "const uint8_t *": ctypes.POINTER(ctypes.c_uint8),
    "int32_t *": ctypes.POINTER(ctypes.c_int32),
    "ae_client *": ctypes.c_void_p,
    "ae_client **": ctypes.POINTER(ctypes.c_void_p),
    "ae_partner_request *": ctypes.c_void_p,
    "ae_http_request *": ctypes.c_void_p,
    "ae_identity_request *": ctypes.c_void_p,
    "ae_identity_provider *": ctypes.POINTER(ae.IdentityProviderStruct),
    "const ae_config *": ctypes.POINTER(ae.Config),
    "ae_config *": ctypes.POINTER(ae.Config),
    "const ae_delegate *": ctypes.POINTER(ae.Delegate),
    "ae_delegate *": ctypes.POINTER(ae.Delegate),
    "ae_partner_framework *": ctypes.POINTER(ae.PartnerFramework),
    "ae_http_transport *": ctypes.POINTER(ae.HttpTransport),
    "ae_preauthorize_fn": ae.PREAUTHORIZE_FN,
    "void *": ctypes.c_void_p,
    "const ae_payload *": ctypes.c_void_p,
    "size_t *": ctypes.POINTER(ctypes.c_size_t),
    "int64_t *": ctypes.POINTER(ctypes.c_int64),
    "ae_metric_fn": ae.METRIC_FN,
    "ae_metrics_push_fn": ae.METRICS_PUSH_FN,
    "char **": ctypes.POINTER(ctypes.c_void_p),
}
RETURN_TYPES = {"void": None, "int32_t": ctypes.c_int32, "int": ctypes.c_int, "const char *": ctypes.c_char_p,
                "char *": ctypes.c_void_p,
    "char **": ctypes.POINTER(ctypes.c_void_p), "const ae_payload *": ctypes.c_void_p, "size_t": ctypes.c_size_t}


def declarations():
    """(name, return type, [parameter types]) of every AE_API function of the header."""
    return bindings.declarations(HEADER)


def test_the_generated_module_is_up_to_date():
    """accessenabler/_abi.py is what the header gives (scripts/test.sh checks it first too)."""
    result = subprocess.run([sys.executable, str(ROOT / "scripts/gen-python-bindings.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_header_parse_finds_every_function():
    names = [name for name, _, _ in declarations()]
    assert len(names) == len(set(names)) == HEADER.count("\nAE_API ")
    assert len(names) >= 29 and "ae_client_dispatch" in names and "ae_partner_request_reply_error" in names


@pytest.mark.parametrize("name, returned, parameters", declarations(), ids=lambda value: str(value))
def test_every_function_has_argtypes_and_restype_as_the_header_declares(name, returned, parameters):
    function = getattr(ae.lib, name)
    assert function.argtypes is not None, f"{name}: argtypes not set"
    assert returned in RETURN_TYPES, f"{name}: return type {returned!r} has no mapping in this test"
    assert function.restype == RETURN_TYPES[returned], f"{name} returns {returned}"
    for parameter in parameters:
        assert parameter in ARGUMENT_TYPES, f"{name}: parameter type {parameter!r} has no mapping in this test"
    assert list(function.argtypes) == [ARGUMENT_TYPES[p] for p in parameters], f"{name}({', '.join(parameters)})"


STRUCTS = {"ae_config": ae.Config, "ae_delegate": ae.Delegate, "ae_partner_framework": ae.PartnerFramework,
           "ae_http_transport": ae.HttpTransport, "ae_identity_provider": ae.IdentityProviderStruct,
           "ae_metric": ae.Metric}


def test_structs_have_the_header_fields_in_order():
    parsed = dict(bindings.structs(HEADER))
    assert sorted(parsed) == sorted(STRUCTS)
    for c_name, struct in STRUCTS.items():
        fields = [name for kind, name, _ in parsed[c_name] if kind != "version"]
        assert [name for name, _ in struct._fields_] == fields, c_name
        body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (c_name, c_name), HEADER, re.S).group(1)
        assert len(fields) == re.sub(r"/\*.*?\*/", "", body, flags=re.S).count(";"), c_name


def test_structs_have_the_c_compilers_layout(tmp_path):
    lines = []
    for c_name, struct in STRUCTS.items():
        lines.append(f'printf("{c_name} %zu\\n", sizeof({c_name}));')
        for field, _ in struct._fields_:
            lines.append(f'printf("{c_name}.{field} %zu\\n", offsetof({c_name}, {field}));')
    source = tmp_path / "layout.c"
    source.write_text('#include "accessenabler.h"\n#include <stddef.h>\n#include <stdio.h>\n'
                      "int main(void) {\n" + "\n".join(lines) + "\nreturn 0;\n}\n")
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", f"-I{ROOT / 'Include'}", str(source), "-o",
                    str(tmp_path / "layout")], check=True)
    compiled = dict(line.rsplit(" ", 1) for line in subprocess.run(
        [str(tmp_path / "layout")], check=True, capture_output=True, text=True).stdout.splitlines())
    for c_name, struct in STRUCTS.items():
        assert int(compiled[c_name]) == ctypes.sizeof(struct), c_name
        for field, _ in struct._fields_:
            assert int(compiled[f"{c_name}.{field}"]) == getattr(struct, field).offset, f"{c_name}.{field}"


def test_constants_match_the_header():
    for name, value in re.findall(r"^#define (AE_[A-Z0-9_]+) \(?(-?\d+)\)?", HEADER, re.M):
        if hasattr(ae, name):
            assert getattr(ae, name) == int(value), name
    # Enumerators (every integer family is an enum: docs/DECISIONS.md); the status codes must all be in the module.
    enumerators = re.findall(r"^\s+(AE_[A-Z0-9_]+) = (-?\d+)", HEADER, re.M)
    assert len(enumerators) >= 58
    for name, value in enumerators:
        if name.startswith(("AE_OK", "AE_E_")) or hasattr(ae, name):
            assert getattr(ae, name) == int(value), name
    assert ae.AE_CONFIG_VERSION == int(re.search(r"#define AE_CONFIG_VERSION (\d+)", HEADER).group(1))
    # Every value of the header (numbers, strings, the version number), as the generator's parser reads it.
    values = [(name, value) for name, value, _ in bindings.constants(HEADER) if name != "comment"]
    assert len(values) >= len(enumerators) + 20
    for name, value in values:
        expected = ast.literal_eval(value) if not re.search(r"[A-Z]", value) else eval(value, {}, vars(ae))
        assert getattr(ae, name) == expected, name
    assert ae.AE_VERSION_NUMBER == ae.lib.ae_version_number()


def test_owned_strings_are_freed_with_ae_string_free(monkeypatch):
    freed = []
    real_free = ae.lib.ae_string_free
    monkeypatch.setattr(ae.lib, "ae_string_free", lambda pointer: (freed.append(pointer), real_free(pointer)))
    assert ae.lib.ae_set_options(None, b"{}") == ae.AE_E_INVALID_HANDLE
    message = ae.last_error_message()
    assert message and len(freed) == 1 and freed[0]
    # The only `char *` return of the header is ae_last_error_message; a new one needs the same care.
    owned = [name for name, returned, _ in declarations() if returned == "char *"]
    assert owned == ["ae_last_error_message"]


def test_callbacks_live_as_long_as_the_client(emulator):
    answers = queue.Queue()

    class Delegate:  # referenced by the client only
        def set_requestor_complete(self, status):
            answers.put(("set_requestor_complete", status))

        def set_metadata_status(self, value, encrypted, key, arguments):
            answers.put(("set_metadata_status", value))

    client = ae.Client(SOFTWARE_STATEMENT, Delegate(), base_url=emulator.url, device_id="bindings-device",
                       max_requests_per_second=-1, log=lambda level, message: None, log_level=ae.AE_LOG_DEBUG)
    gc.collect()
    client.set_requestor("REF30")
    assert answers.get(timeout=15) == ("set_requestor_complete", 1)
    client.set_options({"deviceIdMetadata": True})
    client.get_metadata({"opCode": ae.METADATA_DEVICE_ID})
    gc.collect()
    assert answers.get(timeout=15) == ("set_metadata_status", "bindings-device")
    del client  # destroyed before its callbacks go (Client.__del__)
    gc.collect()


def test_the_library_found_and_the_package_version():
    assert ae.LIBRARY_PATH and ae.version() == "%d.%d.%d" % tuple(
        int(re.search(rf"#define AE_VERSION_{part} (\d+)", HEADER).group(1)) for part in ("MAJOR", "MINOR", "PATCH"))
    assert ae.__version__ == ae.version()
    # The distribution's version is the header's: setuptools reads it from the generated module.
    pyproject = tomllib.loads((ROOT / "Python/pyproject.toml").read_text())
    project = pyproject["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "accessenabler._abi.__version__"}
    assert project.get("dependencies", []) == []
    if not ae.__file__.startswith(str(ROOT / "Python")):  # the pip-installed package (scripts/test.sh)
        assert importlib.metadata.version("accessenabler") == ae.version()
