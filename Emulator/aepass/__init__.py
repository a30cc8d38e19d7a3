"""Local emulator of Adobe Pass Authentication REST API V2, REST API V1 and Dynamic Client Registration.

Standard library only. `aepass-emulator` (cli.py; `python3 -m aepass`) is the command line: `serve`
(serve.py) runs the HTTP server (server.py) with the request pipeline (app.App); `validate` and
`report` judge the request logs it writes against Adobe's OpenAPI files (validate.py, report.py).
`aepass.testing` and the pytest plugin (`pytest_plugin.py`) are for tests written against it.
"""

import os as _os

__version__ = "1.0.0"
# The process that started this one, read as the package is first imported (before the server's modules,
# whose import takes a while on a loaded machine): `serve --exit-with-parent` watches it, so a parent that
# ends while the emulator is still starting is not missed (serve.watch_parent).
STARTED_BY = _os.getppid()
