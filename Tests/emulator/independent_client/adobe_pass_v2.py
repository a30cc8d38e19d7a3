"""A small Adobe Pass Authentication REST API V2 client, written only from Adobe's public pages.

Sources (nothing else was read to write this file):
  * Adobe's REST API V2 and DCR pages, as digested in /work/shared/reference/rest-api-v2.md
    (section numbers below, "§4.4" etc.);
  * Adobe's OpenAPI files restApiV2.json and dcrApi.json (/work/shared/reference/openapi/) and
    their errata (NOTICE.md there);
  * Adobe's documented example exchanges (/work/shared/reference/examples/v2-doc-examples.json).

It is deliberately independent of this repository's SDK, test harnesses and emulator: one module,
the standard library only (urllib.request, json, base64), no shared code. Its job is to prove that
the emulator answers what Adobe's pages describe, not what our own code expects.

Headers, per Adobe's pages and the OpenAPI "required" flags:
  * Authorization: Bearer <access_token>          every V2 call (§3, §5)
  * AP-Device-Identifier: fingerprint <base64 id> sessions, profiles, profiles/{mvpd}, decisions,
                                                    logout (required); configuration (optional,
                                                    sent anyway: erratum E13)
  * X-Device-Info: <base64 of a JSON object>       DCR register and token, and the same V2 calls
  * Content-Type                                    application/json;charset=utf-8 (register,
                                                    decisions), application/x-www-form-urlencoded
                                                    (token, sessions)
  * Accept                                          optional; "if specified, it must be
                                                    application/json" (OpenAPI)

Errors (§7): V2 answers an Enhanced Error Code object {action, status, code, message, details?,
helpUrl?, trace?}; DCR answers OAuth-style {"error": "<code>"} (§4.1, §4.2, §7.3).  Both raise
AdobePassError.
"""

import base64
import json
import urllib.error
import urllib.parse
import urllib.request

JSON_TYPE = "application/json;charset=utf-8"
FORM_TYPE = "application/x-www-form-urlencoded"

# X-Device-Info, §5.1: "at least the attributes marked required": model, version, osName,
# osVersion, connectionType. primaryHardwareType/osFamily/... are optional.
DEFAULT_DEVICE = {
    "primaryHardwareType": "SetTopBox",
    "model": "Independent-Client-Box",
    "version": "1.0",
    "manufacturer": "Example",
    "vendor": "Example",
    "osName": "Linux",
    "osFamily": "Linux",
    "osVersion": "6.1",
    "connectionType": "LAN",
}


def device_info_header(device):
    """X-Device-Info value: Base64 (standard alphabet) of the JSON object (§5.1)."""
    text = json.dumps(device, separators=(",", ":"))
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def device_identifier(stable_id):
    """AP-Device-Identifier value: `fingerprint <Base64 of a stable per-device id>` (§5).

    Adobe's example: ba23d141-d715-561c-94f4-e9e4c966b1eb ->
    fingerprint YmEyM2QxNDEtZDcxNS01NjFjLTk0ZjQtZTllNGM5NjZiMWVi
    """
    return "fingerprint " + base64.b64encode(stable_id.encode("utf-8")).decode("ascii")


class AdobePassError(Exception):
    """An error answer.

    V2 (Enhanced Error Codes, §7.1): status, code, message, action, details, help_url, trace.
    DCR (§7.3): code is the OAuth `error` value; status is the HTTP status; action is None.
    `http_status` is the HTTP status of the answer (Adobe: it may differ from `status`), `body` the
    parsed JSON body (None when the body is not JSON, e.g. a 429 text/html page), `raw` its bytes.
    """

    def __init__(self, http_status, body, raw, headers):
        self.http_status = http_status
        self.body = body
        self.raw = raw
        self.headers = headers
        obj = body if isinstance(body, dict) else {}
        self.status = obj.get("status", http_status)
        self.code = obj.get("code") or obj.get("error")
        self.message = obj.get("message")
        self.action = obj.get("action")
        self.details = obj.get("details")
        self.help_url = obj.get("helpUrl")
        self.trace = obj.get("trace")
        self.is_enhanced = all(k in obj for k in ("status", "code", "action", "message"))
        super().__init__("HTTP %s: %s (action %s) %s" % (http_status, self.code, self.action,
                                                          self.message or (raw[:200] if raw else "")))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D401
        return None


class AdobePassV2:
    """One application on one device.

    base_url          e.g. "https://sp.auth.adobe.com" (DCR lives under /o, V2 under /api/v2, §1)
    service_provider  the requestor id, e.g. "REF30"
    software_statement  the statement from the TVE Dashboard (§4.1)
    device_id         a stable id of this device; sent Base64'd as AP-Device-Identifier
    device            the X-Device-Info object (default: DEFAULT_DEVICE)
    send_device_info  False: send no X-Device-Info at all (Adobe's header page: a client may omit
                      it, the platform is then "unknown"; the OpenAPI files mark it required)
    """

    def __init__(self, base_url, service_provider, software_statement, device_id,
                 device=None, send_device_info=True, redirect_uri=None, accept="application/json",
                 timeout=10.0, user_agent="independent-adobe-pass-v2-client/1.0", extra_headers=None):
        self.base_url = base_url.rstrip("/")
        self.service_provider = service_provider
        self.software_statement = software_statement
        self.device_id = device_id
        self.device = dict(DEFAULT_DEVICE) if device is None else device
        self.send_device_info = send_device_info
        self.redirect_uri = redirect_uri
        self.accept = accept
        self.timeout = timeout
        self.user_agent = user_agent
        self.extra_headers = dict(extra_headers or {})
        self.client_id = None
        self.client_secret = None
        self.access_token = None
        self.exchanges = []      # (method, path, http status) of every call, for the tests
        self._opener = urllib.request.build_opener(_NoRedirect)

    # -- plumbing -------------------------------------------------------------------------------

    def _device_headers(self):
        headers = {"AP-Device-Identifier": device_identifier(self.device_id)}
        if self.send_device_info:
            headers["X-Device-Info"] = device_info_header(self.device)
        return headers

    def _bearer(self):
        if not self.access_token:
            raise RuntimeError("no access token: call register() and token() first")
        return {"Authorization": "Bearer " + self.access_token}

    def _call(self, method, path, headers, body=None, query=None):
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        all_headers = {"User-Agent": self.user_agent}
        if self.accept:
            all_headers["Accept"] = self.accept
        all_headers.update(self.extra_headers)
        all_headers.update(headers)
        req = urllib.request.Request(url, data=body, method=method, headers=all_headers)
        try:
            resp = self._opener.open(req, timeout=self.timeout)
            status, raw, resp_headers = resp.status, resp.read(), resp.headers
            resp.close()
        except urllib.error.HTTPError as err:
            status, raw, resp_headers = err.code, err.read(), err.headers
            err.close()
        self.exchanges.append((method, path, status))
        parsed = None
        if raw:
            try:
                parsed = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                parsed = None
        if status >= 400:
            raise AdobePassError(status, parsed, raw, resp_headers)
        if raw and parsed is None:
            raise AdobePassError(status, None, raw, resp_headers)
        return status, parsed, resp_headers

    def _v2(self, *segments):
        return "/api/v2/" + "/".join(urllib.parse.quote(s, safe="") for s in segments)

    # -- Dynamic Client Registration (§4.1, §4.2) -------------------------------------------------

    def register(self):
        """POST /o/client/register, JSON {software_statement, redirect_uri?} -> 201 client."""
        payload = {"software_statement": self.software_statement}
        if self.redirect_uri is not None:
            payload["redirect_uri"] = self.redirect_uri
        headers = {"Content-Type": JSON_TYPE}
        if self.send_device_info:
            headers["X-Device-Info"] = device_info_header(self.device)
        status, body, _ = self._call("POST", "/o/client/register", headers,
                                     json.dumps(payload).encode("utf-8"))
        if status != 201:
            raise AdobePassError(status, body, b"", {})
        self.client_id = body["client_id"]
        self.client_secret = body["client_secret"]
        return body

    def token(self):
        """POST /o/client/token, form client_id, client_secret, grant_type=client_credentials."""
        form = urllib.parse.urlencode({"client_id": self.client_id,
                                       "client_secret": self.client_secret,
                                       "grant_type": "client_credentials"})
        headers = {"Content-Type": FORM_TYPE}
        if self.send_device_info:
            headers["X-Device-Info"] = device_info_header(self.device)
        status, body, _ = self._call("POST", "/o/client/token", headers, form.encode("ascii"))
        if status != 201:
            raise AdobePassError(status, body, b"", {})
        self.access_token = body["access_token"]
        return body

    # -- REST API V2 ----------------------------------------------------------------------------

    def configuration(self):
        """GET /api/v2/{sp}/configuration -> {requestor: {id, name, domains, mvpds}, ...} (§4.3)."""
        headers = self._bearer()
        headers.update(self._device_headers())
        return self._call("GET", self._v2(self.service_provider, "configuration"), headers)[1]

    def create_session(self, mvpd=None, domain_name=None, redirect_url=None):
        """POST /api/v2/{sp}/sessions, form mvpd?, domainName?, redirectUrl? (§4.4)."""
        form = {}
        if mvpd is not None:
            form["mvpd"] = mvpd
        if domain_name is not None:
            form["domainName"] = domain_name
        if redirect_url is not None:
            form["redirectUrl"] = redirect_url
        headers = self._bearer()
        headers.update(self._device_headers())
        headers["Content-Type"] = FORM_TYPE
        return self._call("POST", self._v2(self.service_provider, "sessions"), headers,
                          urllib.parse.urlencode(form).encode("ascii"))[1]

    def profile_for_code(self, code):
        """GET /api/v2/{sp}/profiles/code/{code} -> {profiles: {...}} (§4.10; no device headers)."""
        return self._call("GET", self._v2(self.service_provider, "profiles", "code", code),
                          self._bearer())[1]

    def profiles(self, mvpd=None):
        """GET /api/v2/{sp}/profiles or /profiles/{mvpd} -> {profiles: {mvpd: profile}} (§4.8, §4.9)."""
        headers = self._bearer()
        headers.update(self._device_headers())
        path = (self._v2(self.service_provider, "profiles") if mvpd is None
                else self._v2(self.service_provider, "profiles", mvpd))
        return self._call("GET", path, headers)[1]

    def _decisions(self, kind, mvpd, resources):
        headers = self._bearer()
        headers.update(self._device_headers())
        headers["Content-Type"] = JSON_TYPE
        body = json.dumps({"resources": list(resources)}).encode("utf-8")
        return self._call("POST", self._v2(self.service_provider, "decisions", kind, mvpd),
                          headers, body)[1]

    def preauthorize(self, mvpd, resources):
        """POST .../decisions/preauthorize/{mvpd} {"resources": [...]} -> {decisions: [...]} (§4.11)."""
        return self._decisions("preauthorize", mvpd, resources)

    def authorize(self, mvpd, resources):
        """POST .../decisions/authorize/{mvpd} -> decisions, a media `token` on permits (§4.12)."""
        return self._decisions("authorize", mvpd, resources)

    def logout(self, mvpd, redirect_url):
        """GET /api/v2/{sp}/logout/{mvpd}?redirectUrl=... -> {logouts: {mvpd: action}} (§4.13)."""
        headers = self._bearer()
        headers.update(self._device_headers())
        return self._call("GET", self._v2(self.service_provider, "logout", mvpd), headers,
                          query={"redirectUrl": redirect_url})[1]


def decision_for(answer, resource):
    """The decision of `resource` in a decisions answer."""
    for decision in answer["decisions"]:
        if decision["resource"] == resource:
            return decision
    raise KeyError(resource)
