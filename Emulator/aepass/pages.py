"""Browser-facing pages: the fake MVPD login form, the MVPD logout page and MVPD logos."""

from __future__ import annotations

from html import escape
from urllib.parse import urlsplit

from .catalog import REQUESTORS, all_mvpds
from .errors import PageError
from .login import complete_login
from .state import Session, State, now_ms
from .web import Request, Response, form_fields, html_response, redirect

_STYLE = (
    "body{font-family:sans-serif;max-width:28em;margin:3em auto;padding:0 1em}"
    "label{display:block;margin:.8em 0}input,select{display:block;width:100%;padding:.4em}"
    "button{margin-top:1em;padding:.5em 2em}.error{color:#b00}"
)


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<style>{_STYLE}</style></head><body>{body}</body></html>"
    )


def _is_web_url(url: str) -> bool:
    return urlsplit(url).scheme in ("http", "https")


def _session(state: State, code: str | None) -> Session:
    session = state.sessions.get(code or "")
    if session is None:
        raise PageError(404, "Unknown authentication code.")
    if session.expired(now_ms()):
        raise PageError(410, "This authentication code has expired. Start again on your TV.")
    return session


def _login_form(session: Session, error: str | None = None) -> str:
    requestor = REQUESTORS[session.service_provider]
    chosen = requestor.login_mvpd(session.params.get("mvpd", ""))
    if chosen:
        provider = f"<p>TV provider: <strong>{escape(chosen.display_name)}</strong></p>"
    else:
        options = "".join(
            f'<option value="{escape(m.id)}">{escape(m.display_name)}</option>' for m in requestor.login_mvpds
        )
        provider = f'<label>TV provider<select name="mvpd" required>{options}</select></label>'
    problem = f'<p class="error">{escape(error)}</p>' if error else ""
    return _page("Sign in with your TV provider", (
        f"<h1>Sign in with your TV provider</h1>"
        f"<p>{escape(requestor.name)} &middot; code <strong>{escape(session.code)}</strong></p>{problem}"
        f'<form method="post" action="/_emulator/mvpd/login">'
        f'<input type="hidden" name="code" value="{escape(session.code)}">{provider}'
        f'<label>Username<input name="username" autocomplete="username" required></label>'
        f'<label>Password<input type="password" name="password" autocomplete="current-password" required>'
        f'</label><button type="submit">Sign in</button></form>'
    ))


def login_page(state: State, req: Request) -> Response:
    """GET /_emulator/mvpd/login?code=...: the MVPD login form."""
    session = _session(state, req.query_params().get("code", [""])[0])
    req.client_id = session.client_id
    return html_response(200, _login_form(session))


def login_submit(state: State, req: Request) -> Response:
    """POST /_emulator/mvpd/login: create the regular profile, then go to the session's redirectUrl."""
    form = {k: v[0] for k, v in form_fields(req.text()).items()}
    session = _session(state, form.get("code"))
    req.client_id = session.client_id
    requestor = REQUESTORS[session.service_provider]
    mvpd = requestor.login_mvpd(session.params.get("mvpd") or form.get("mvpd", ""))
    if mvpd is None:
        return html_response(400, _login_form(session, "Choose your TV provider."))
    if not form.get("username") or not form.get("password"):
        return html_response(400, _login_form(session, "Enter your username and password."))
    complete_login(state, session, mvpd.id, form["username"], now_ms())
    redirect_url = session.params.get("redirectUrl", "")
    if _is_web_url(redirect_url):
        return redirect(redirect_url)
    return html_response(200, _page("Signed in", (
        f"<h1>You are signed in</h1><p>You are signed in with {escape(mvpd.display_name)}. "
        f"Return to your TV to continue.</p>"
    )))


def mvpd_logout_page(state: State, req: Request) -> Response:
    """GET /adobe-services/logout: the MVPD's logout page; ends at redirect_url when it is a web URL."""
    query = req.query_params()
    mvpd = all_mvpds().get(query.get("mso_id", [""])[0])
    name = mvpd.display_name if mvpd else "your TV provider"
    redirect_url = query.get("redirect_url", [""])[0]
    html = _page("Signed out", f"<h1>You are signed out</h1><p>You are signed out of {escape(name)}.</p>")
    if _is_web_url(redirect_url):
        return html_response(302, html, [("Location", redirect_url)])
    return html_response(200, html)


def logo(state: State, req: Request) -> Response:
    """GET /_emulator/logos/<mvpd>.svg."""
    name = req.path_params["file"]
    mvpd = all_mvpds().get(name[:-4]) if name.endswith(".svg") else None
    if mvpd is None:
        raise PageError(404, "Unknown logo.")
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="48" viewBox="0 0 160 48">'
        '<rect width="160" height="48" rx="6" fill="#1d3557"/>'
        '<text x="80" y="30" font-family="sans-serif" font-size="16" fill="#fff" text-anchor="middle">'
        f"{escape(mvpd.display_name)}</text></svg>"
    )
    return Response(200, svg.encode("utf-8"), [("Content-Type", "image/svg+xml")])
