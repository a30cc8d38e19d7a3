"""REST API V1 ("Clientless API", legacy): registration codes, authN/authZ tokens, media tokens,
preauthorization, user metadata, logout, TempPass and the Apple SSO profile request / token
exchange. The endpoint table (`spec.py`) is the one description of the requests; the handlers
share DCR, sessions (registration codes), profiles (authN tokens) and partner requests with V2.
"""
