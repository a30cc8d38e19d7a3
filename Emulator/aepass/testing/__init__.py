"""Test helpers for code tested against the emulator (also what the pytest plugin's fixtures use).

* `EmulatorProcess(*serve_args, env=None)`: an emulator subprocess on a free port; `.url`, `.stop()`,
  `.alive()`, `.restart()`, and the control API of `Control`.
* `Control(url)`: the control API (`/_emulator/...`) of an emulator already running: `reset()`,
  `config(**settings)`, `login(code)`, `advance_clock(ms)`, `faults(*faults)`, `log()`, `clear_log()`,
  `operations()`, partner and SSO refusals, TempPass, ...
* `request_problems(entries)` / `assert_valid_requests(entries)`: logged requests against Adobe's
  OpenAPI files; `answer_problems(...)`: an answer against the response schemas (need `jsonschema`).
* `partner_framework_status(...)`, `partner_saml_response(...)`: partner (Apple) SSO over plain HTTP.

Standard library only (the checks import `jsonschema` when they first validate JSON).
"""

from .checks import INVALID_MARK, answer_problems, assert_valid_requests, marked_invalid, request_problems
from .control import Control, ControlError, Headers
from .partner import partner_framework_status, partner_saml_response
from .process import EmulatorProcess, EmulatorStartError, serve_command

__all__ = [
    "INVALID_MARK", "Control", "ControlError", "EmulatorProcess", "EmulatorStartError", "Headers",
    "answer_problems", "assert_valid_requests", "marked_invalid", "partner_framework_status",
    "partner_saml_response", "request_problems", "serve_command",
]
