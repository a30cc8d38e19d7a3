"""Local emulator of Adobe Pass Authentication REST API V2 and Dynamic Client Registration.

Standard library only. `emulator.py` (one level up) is the command-line entry point;
`server.serve` runs the HTTP server; `app.App` is the request pipeline.
"""
