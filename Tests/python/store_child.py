# SPDX-License-Identifier: Apache-2.0
"""Another process of the app, for the store tests: runs AccessEnabler calls on a shared store
and prints what happened as one JSON line. Run under libfaketime to give it a wrong clock.

    python3 store_child.py '{"url": ..., "store": ..., "key": hex or null, "statement": ...,
                             "actions": ["requestor", "check", "authorize:LIVE", "preauthorize",
                                         "lookups", "metadata", ...], "api": "v1" or absent}'
    The result also has "statuses": the errorId of every status callback, in order.
"""
import json
import sys

from harness import SOFTWARE_STATEMENT, Recorder, ae


def main():
    spec = json.loads(sys.argv[1])
    recorder = Recorder()
    key = bytes.fromhex(spec["key"]) if spec.get("key") else None
    result = {}
    try:
        client = ae.Client(spec.get("statement", SOFTWARE_STATEMENT), recorder, base_url=spec["url"],
                           storage_path=spec["store"], device_id="tv-device-1", poll_interval_ms=1000,
                           max_requests_per_second=-1, store_key=key,
                           api_generation=ae.AE_API_V1 if spec.get("api") == "v1" else ae.AE_API_V2,
                           **({"ca_file": spec["ca_file"]} if spec.get("ca_file") else {}))
    except ae.AEError as error:
        print(json.dumps({"create": error.status}))
        return
    result["store_status"] = client.store_status()
    for action in spec["actions"]:
        if action == "requestor":
            client.set_requestor("REF30")
            result["requestor"] = recorder.wait("set_requestor_complete", timeout=30)[0]
        elif action == "check":
            client.check_authentication()
            result["authenticated"] = list(recorder.wait("set_authentication_status", timeout=30))
        elif action.startswith("authorize:"):
            resource = action.split(":", 1)[1]
            client.get_authorization(resource)
            outcome = recorder.wait_any(("set_token", "token_request_failed", "display_provider_dialog"), timeout=30)
            if outcome[0] == "display_provider_dialog":  # not authenticated: the login it starts is cancelled
                client.set_selected_provider(None)
                recorder.wait_any(("token_request_failed", "set_authentication_status"), timeout=30)
            result.setdefault("authorized", []).append(outcome[0] == "set_token")
            result.setdefault("authorize_outcomes", []).append(outcome[0])
        elif action == "preauthorize":
            client.check_preauthorized_resources(["LIVE", "NEWS"], False)
            recorder.wait("preauthorized_resources", timeout=30)
        elif action == "metadata":  # every opCode: the value each answers (null: none)
            client.set_options({"deviceIdMetadata": True})  # opcode 2 is off until enabled
            values = []
            for arguments in ({"opCode": ae.METADATA_AUTHENTICATION},
                              {"opCode": ae.METADATA_AUTHORIZATION, "resource_id": "LIVE"},
                              {"opCode": ae.METADATA_DEVICE_ID},
                              {"opCode": ae.METADATA_USER_META, "user_metadata_name": "tokenSource"}):
                count = len(recorder.of("set_metadata_status"))
                client.get_metadata(arguments)
                values.append(recorder.wait("set_metadata_status", timeout=30, count=count + 1)[0])
            result["metadata"] = values
        elif action == "lookups":  # under Tests/c/dns_counter.c (LD_PRELOAD): getaddrinfo calls so far
            import ctypes
            result.setdefault("lookups", []).append(ctypes.CDLL(None).ae_test_dns_lookups())
    client.close()
    result["statuses"] = [status["errorId"] for status in recorder.statuses()]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
