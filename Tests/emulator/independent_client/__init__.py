"""An Adobe Pass REST API V2 client written only from Adobe's public documentation.

See `adobe_pass_v2.py`. It shares no code with the SDK, the test harnesses or the emulator.
"""

from .adobe_pass_v2 import AdobePassError, AdobePassV2, device_identifier, device_info_header  # noqa: F401
