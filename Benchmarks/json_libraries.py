#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Jansson vs cJSON on Adobe's documented answers (docs/DECISIONS.md "JSON"): builds
Benchmarks/json_libraries.c against Debian's libjansson-dev and libcjson-dev, runs it on every JSON
body of Emulator/examples/v2-doc-examples.json, and prints the speed table and both libraries'
installed sizes.

    python3 Benchmarks/json_libraries.py      (apt-get install libjansson-dev libcjson-dev)
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main():
    examples = json.loads((ROOT / "Emulator/examples/v2-doc-examples.json").read_text())
    bodies = [e["response_body"] for e in examples
              if isinstance(e.get("response_body"), str) and e["response_body"].lstrip()[:1] in ("{", "[")]
    with tempfile.TemporaryDirectory() as work:
        data = Path(work, "bodies.bin")
        data.write_bytes(b"\0".join(body.encode() for body in bodies) + b"\0")
        exe = Path(work, "json_libraries")
        subprocess.run(["cc", "-O2", str(ROOT / "Benchmarks/json_libraries.c"), "-o", str(exe),
                        "-ljansson", "-lcjson"], check=True)
        print(subprocess.run([str(exe), str(data)], check=True, capture_output=True, text=True).stdout, end="")
    print("\n| library | shared object | size |\n|---|---|---:|")
    for package, name in (("libjansson4", "libjansson.so"), ("libcjson1", "libcjson.so")):
        files = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True).stdout.split()
        real = [f for f in files if Path(f).name.startswith(name + ".") and not Path(f).is_symlink()]
        for path in real:
            print(f"| {package} | {Path(path).name} | {Path(path).stat().st_size / 1024:.1f} KiB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
