"""Conformance report: what a client sent to the emulator, judged against Adobe's contract.

    aepass-emulator report LOG.jsonl [LOG2.jsonl ...] [--require STEPS] [--json] [--spec-dir DIR]

Reads the request logs the emulator writes (`serve --log-file`, or `$AE_EMULATOR_LOG_DIR`) and prints:
- per operation (OpenAPI operationId, or V1's endpoint): requests seen, answers by status class, and
  how many requests break Adobe's OpenAPI files (the request errata of openapi/NOTICE.md applied);
- every violation, one line each (`aepass.validate`);
- flow coverage: which steps of Adobe's documented flows the client exercised (STEPS below: the
  REST API V2 registration, second-screen, profile, decision and logout steps, the Apple,
  platform identity and service token SSO cookbooks' steps, and REST API V1's second-screen flow).

Exit status, for another project's CI: 0 every request valid and every required step covered;
1 some request breaks the contract; 3 a step named by --require was not exercised; 2 no API request
in the logs. `--require` takes step ids, group names (`registration`, `second-screen`, `decisions`,
`partner-sso`, `token-sso`, `v1`), or `all`, comma-separated.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from .validate import SPEC_DIR, is_api_entry, is_warm_up, read_log, validate_entry

Entry = dict[str, Any]
# The request-side errata the validator applies (the rest of NOTICE.md is about answers).
REQUEST_ERRATA = ("E8", "E9", "E11", "E12", "E13")


def _answered(entry: Entry) -> bool:
    """A request the emulator served (not throttled, not a fault)."""
    return isinstance(entry.get("status"), int) and entry["status"] < 400 and "fault" not in entry


def _header(entry: Entry, name: str) -> bool:
    return any(key.lower() == name.lower() and value for key, value in (entry.get("headers") or {}).items())


def _sso(entry: Entry, kind: str) -> bool:
    return any(token.get("valid") and token.get("type") == kind for token in entry.get("sso") or ())


DECISIONS = ("retrievePreAuthorizeDecisionsForMvpdUsingPOST_1", "retrieveAuthorizeDecisionsForMvpdUsingPOST")


@dataclass(frozen=True)
class Step:
    id: str
    group: str
    title: str
    source: str  # where Adobe documents it (rest-api-v2.md section, cookbook step)
    seen: Callable[[Entry], bool]


def _answered_to(*operations: str) -> Callable[[Entry], bool]:
    return lambda entry: entry.get("operation") in operations and _answered(entry)


def _decision_with_pfs(entry: Entry) -> bool:
    return entry.get("operation") in DECISIONS and _header(entry, "AP-Partner-Framework-Status") and _answered(entry)


# (id, group, title, where Adobe documents it, which requests exercise it)
STEPS: tuple[Step, ...] = tuple(Step(*row) for row in (
    ("register", "registration", "register the application (DCR)", "DCR flow 1 (§8.1)",
     _answered_to("processSoftwareStatementUsingPOST")),
    ("token", "registration", "obtain an access token", "DCR flow 2 (§8.1)", _answered_to("generateAccessTokenUsingPOST")),
    ("configuration", "second-screen", "retrieve the configuration (MVPD list)", "§8.2 step 1, cookbook C.1",
     _answered_to("handleRequestUsingGET")),
    ("session", "second-screen", "create an authentication session (registration code)", "§8.3 step 1",
     _answered_to("createSessionUsingPOST")),
    ("poll", "second-screen", "poll the profile by code", "§8.3 step 2", _answered_to("getProfileForCodeUsingGET_1")),
    ("code-check", "second-screen", "the secondary application checks or resumes the code",
     "§8.3 step 3 (GET or POST sessions/{code})", _answered_to("getSessionStatusUsingGET_1", "resumeSessionUsingPOST")),
    ("profiles", "second-screen", "retrieve the profiles (all, or one MVPD's)", "§8.4",
     _answered_to("getProfilesUsingGET_1", "getProfileForMvpdUsingGET")),
    ("preauthorize", "decisions", "preauthorization decisions", "§8.4", _answered_to(DECISIONS[0])),
    ("authorize", "decisions", "authorization decision and media token", "§8.4", _answered_to(DECISIONS[1])),
    ("logout", "decisions", "logout", "§8.4", _answered_to("getLogoutForMvpdUsingGET")),
    ("partner-session", "partner-sso", "partner authentication request (sessions/sso)",
     "Apple SSO cookbook (REST API V2) B/C", _answered_to("retrieveVerificationTokenUsingPOST")),
    ("partner-profile", "partner-sso", "partner profile from the SAML response (profiles/sso)",
     "Apple SSO cookbook (REST API V2) B/C", _answered_to("createPartnerProfileUsingPOST")),
    ("partner-decision", "partner-sso", "a decision sent with AP-Partner-Framework-Status",
     "Apple SSO cookbook (REST API V2) D", _decision_with_pfs),
    ("platform-sso", "token-sso", "a request with a valid platform identity token",
     "Amazon / Roku SSO cookbooks (REST API V2)", lambda e: _sso(e, "platformSSO")),
    ("service-token-sso", "token-sso", "a request with a valid AD-Service-Token",
     "Service token SSO (REST API V2)", lambda e: _sso(e, "serviceTokenSSO")),
    # REST API V1 (the "clientless" API), its second-screen flow (rest-api-v1.md §6.1, §5).
    ("v1-mvpd-list", "v1", "provide the MVPD list (config)", "V1 §5.4", _answered_to("v1ProvideMvpdList")),
    ("v1-regcode", "v1", "request a registration code", "V1 §5.1", _answered_to("v1RegistrationCodeRequest")),
    ("v1-authn-token", "v1", "retrieve the authentication token", "V1 §5.8",
     _answered_to("v1RetrieveAuthenticationToken")),
    ("v1-preauthorize", "v1", "preauthorized resources", "V1 §5.13", _answered_to("v1Preauthorize")),
    ("v1-authorize", "v1", "initiate authorization", "V1 §5.10", _answered_to("v1InitiateAuthorization")),
    ("v1-media-token", "v1", "obtain a short media token", "V1 §5.12", _answered_to("v1ObtainShortMediaToken")),
    ("v1-metadata", "v1", "user metadata", "V1 §5.16", _answered_to("v1UserMetadata")),
    ("v1-logout", "v1", "initiate logout", "V1 §5.15", _answered_to("v1InitiateLogout")),
))
GROUPS = tuple(dict.fromkeys(step.group for step in STEPS))


def required_steps(text: str) -> list[str]:
    """Step ids named by --require (ids, group names, `all`); ValueError names an unknown one."""
    wanted: list[str] = []
    for name in filter(None, (part.strip() for part in text.split(","))):
        if name == "all":
            wanted += [s.id for s in STEPS]
        elif name in GROUPS:
            wanted += [s.id for s in STEPS if s.group == name]
        elif any(s.id == name for s in STEPS):
            wanted.append(name)
        else:
            raise ValueError(f"unknown step or group {name!r} (steps: {', '.join(s.id for s in STEPS)}; "
                             f"groups: {', '.join(GROUPS)}, all)")
    return list(dict.fromkeys(wanted))


def errata(spec_dir: str) -> dict[str, str]:
    """The request errata's one-line summaries, from the NOTICE.md table next to the OpenAPI files."""
    notice = Path(spec_dir) / "NOTICE.md"
    rows = re.findall(r"^\| (E\d+) \| (.+?) \|$", notice.read_text(encoding="utf-8"), re.MULTILINE) \
        if notice.exists() else []
    found = dict(rows)
    return {e: found.get(e, "(not in NOTICE.md)") for e in REQUEST_ERRATA}


def _operation_name(entry: Entry) -> str:
    if is_warm_up(entry):
        return "(connection warm-up: HEAD /)"
    return entry.get("operation") or f"(unknown path) {entry.get('method')} {entry.get('path')}"


def build(entries: Iterable[Entry], spec_dir: str = str(SPEC_DIR)) -> dict[str, Any]:
    """The report as data: operations, violations, coverage."""
    api = [e for e in entries if is_api_entry(e)]
    operations: dict[str, dict[str, Any]] = {}
    violations: list[str] = []
    for entry in api:
        row = operations.setdefault(_operation_name(entry), {"requests": 0, "invalid": 0, "statuses": Counter()})
        row["requests"] += 1
        status = entry.get("status")
        row["statuses"][f"{status // 100}xx" if isinstance(status, int) else "none"] += 1
        problems = validate_entry(entry, spec_dir)
        if problems:
            row["invalid"] += 1
            violations += problems
    coverage = {s.id: sum(1 for e in api if s.seen(e)) for s in STEPS}
    return {
        "requests": len(api),
        "warm_ups": sum(1 for e in api if is_warm_up(e)),
        "operations": {name: {**row, "statuses": dict(sorted(row["statuses"].items()))}
                       for name, row in sorted(operations.items())},
        "violations": violations,
        "coverage": coverage,
        "errata": errata(spec_dir),
    }


def render(report: dict[str, Any], required: list[str]) -> str:
    lines = [f"{report['requests']} requests", "", "| operation | requests | answers | invalid |",
             "|---|---:|---|---:|"]
    for name, row in report["operations"].items():
        answers = ", ".join(f"{k} {v}" for k, v in row["statuses"].items())
        lines.append(f"| {name} | {row['requests']} | {answers} | {row['invalid']} |")
    lines += ["", f"OpenAPI violations: {len(report['violations'])} (errata applied: "
              + "; ".join(f"{k} {v}" for k, v in report["errata"].items()) + ")"]
    lines += [f"  {v}" for v in report["violations"]]
    lines += ["", "Flow coverage (requests per step; * = required):"]
    for step in STEPS:
        count = report["coverage"][step.id]
        mark = "*" if step.id in required else " "
        state = "covered" if count else ("MISSING" if step.id in required else "not exercised")
        lines.append(f" {mark} {step.group:13} {step.id:18} {count:5}  {state:13}  {step.title} ({step.source})")
    covered = sum(1 for count in report["coverage"].values() if count)
    lines.append(f"{covered} of {len(STEPS)} steps exercised")
    return "\n".join(lines)


def exit_status(report: dict[str, Any], required: list[str]) -> int:
    if report["requests"] == report["warm_ups"]:  # no Adobe request at all
        return 2
    if report["violations"]:
        return 1
    return 3 if any(not report["coverage"][step] for step in required) else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="aepass-emulator report", description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", help="JSONL request logs written by the emulator")
    parser.add_argument("--require", default="", metavar="STEPS",
                        help="steps that must be exercised: ids, groups or `all`, comma-separated")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--spec-dir", default=str(SPEC_DIR), help="folder with the OpenAPI files")
    args = parser.parse_args(argv)
    try:
        required = required_steps(args.require)
        entries = [entry for path in args.logs for entry in read_log(path)]
    except (ValueError, OSError) as error:
        print(f"report: {error}", file=sys.stderr)
        return 2
    report = build(entries, args.spec_dir)
    print(json.dumps({**report, "required": required}, indent=2) if args.json else render(report, required))
    return exit_status(report, required)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
