"""Local emulator of Adobe Pass Authentication REST API V2, REST API V1 and Dynamic Client Registration.

Standard library only. `aepass-emulator` (cli.py; `python3 -m aepass`) is the command line: `serve`
(serve.py) runs the HTTP server (server.py) with the request pipeline (app.App); `validate` and
`report` judge the request logs it writes against Adobe's OpenAPI files (validate.py, report.py).
`aepass.testing` and the pytest plugin (`pytest_plugin.py`) are for tests written against it.
"""

__version__ = "1.0.0"
