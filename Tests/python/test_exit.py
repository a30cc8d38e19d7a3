# SPDX-License-Identifier: Apache-2.0
"""Process exit while the SDK is busy (issue 28, item 4): a host that returns from main() or calls exit()
with clients alive and requests in flight, from inside a callback, from an event loop, or right after
destroying clients whose requests failed on TLS, ends with status 0 and no signal; so does a Python
interpreter that exits with clients open, leaked, or with the host transport's threads mid-request.

Each case runs a real program many times (Tests/c/exit_alive.c, Tests/python/exit_child.py: each seed
another moment to end) on the real library, against the emulator or a real TLS front whose certificate
the clients refuse (self-signed, so every request is a new handshake that fails). 1.2.0 (and the package
before its atexit handler) ended with SIGSEGV, SIGBUS or SIGABRT ("double free") in each C case with
clients alive behind the bad front, and in the Python cases whose clients or request threads outlived
the interpreter's teardown (leaked, host transport): in 1 to 5 runs of 15 per case here, in most runs
of a serial loop. OpenSSL's atexit handler (OPENSSL_cleanup) freed its state while the SDK's network
threads, or the host transport's, were in a handshake; an SDK thread called a ctypes callback after
the interpreter had finalized. The other cases (right after destroy, the emulator, Python clients that
the teardown destroys) did not fail with 1.2.0: they stay as guards. Only the exit status and signals
are checked, never times."""
import concurrent.futures
import fcntl
import os
import signal
import subprocess
import sys

import pytest
from harness import ROOT, ae
from test_c_programs import LIBRARY
from test_tls import fronts, pki  # noqa: F401 (fixtures)

C_RUNS = 10  # per case
PYTHON_RUNS = 5


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """exit_alive linked as a host links it (the library's constructor runs before anything initialises
    OpenSSL), and again with libopenssl_first after it (OpenSSL initialised first, its clean-up registered).
    Built once per run: pytest-xdist's workers share the directory (under a lock)."""
    base = tmp_path_factory.getbasetemp()
    out = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "exit-programs"
    out.mkdir(exist_ok=True)
    built = {"library first": out / "exit_alive", "OpenSSL first": out / "exit_alive_openssl_first"}
    with open(out / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not all(path.exists() for path in built.values()):
            subprocess.run(["gcc", "-shared", "-fPIC", "-O2", str(ROOT / "Tests/c/openssl_first.c"), "-o",
                            str(out / "libopenssl_first.so"), "-lssl", "-lcrypto"], check=True)
            base_command = ["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-pthread",
                            f"-I{ROOT / 'Include'}", str(ROOT / "Tests/c/exit_alive.c"), f"-L{LIBRARY.parent}",
                            f"-Wl,-rpath,{LIBRARY.parent}", "-laccessenabler", "-lcurl"]
            subprocess.run(base_command + ["-o", str(out / "exit_alive.tmp")], check=True)
            subprocess.run(base_command + ["-o", str(out / "exit_alive_openssl_first.tmp"), "-Wl,--no-as-needed",
                                           f"-L{out}", f"-Wl,-rpath,{out}", "-lopenssl_first"], check=True)
            for path in built.values():
                os.replace(f"{path}.tmp", path)
    return built


@pytest.fixture
def target(request, emulator, fronts, pki):  # noqa: F811 (fixtures)
    """(base URL, CA file or None) of `request.param`: the emulator (100 ms per request, so that they are
    in flight), a front whose certificate is self-signed, or a good front (the test root as CA file)."""
    if request.param == "emulator":
        emulator.config(latency_ms=100)
        return emulator.url, None
    if request.param == "bad TLS":
        return fronts.start(pki.self_signed).url, None
    return fronts.start(pki.good).url, str(pki.ca_file)


def ended(code):
    return f"signal {signal.Signals(-code).name}" if code < 0 else f"status {code}"


def run_many(command, runs, env=None):
    """Runs command(seed) for seeds 1..runs, two at a time; asserts that each ended with status 0."""
    def one(seed):
        try:
            result = subprocess.run(command(seed), capture_output=True, text=True, timeout=60, env=env)
        except subprocess.TimeoutExpired as hung:
            return seed, "hung (killed after 60 s)", f"{hung.stdout or ''}{hung.stderr or ''}"
        return seed, None if result.returncode == 0 else ended(result.returncode), result.stdout + result.stderr

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        failures = [(seed, how, output) for seed, how, output in pool.map(one, range(1, runs + 1)) if how]
    assert not failures, f"{len(failures)} of {runs} runs failed:\n" + "\n".join(
        f"seed {seed}: {how}\n{output[-1500:]}" for seed, how, output in failures)


C_CASES = [  # mode, transport, target, program: each ending of exit_alive.c, each transport, each target
    ("alive", "curl", "bad TLS", "library first"),
    ("alive", "host", "bad TLS", "library first"),
    ("alive", "curl", "emulator", "library first"),
    ("callback", "curl", "bad TLS", "library first"),
    ("callback", "host", "emulator", "library first"),
    ("event-loop", "host", "bad TLS", "library first"),
    ("destroyed", "curl", "bad TLS", "library first"),
    ("destroyed", "curl", "good TLS", "library first"),
    # OpenSSL's clean-up registered before the library loaded: the exit gate keeps the SDK's threads out
    # of it. A host transport's own threads are the host's then (docs/THREADING.md, "At exit").
    ("alive", "curl", "bad TLS", "OpenSSL first"),
    ("event-loop", "curl", "bad TLS", "OpenSSL first"),
]


@pytest.mark.slow
@pytest.mark.parametrize("mode,transport,target,program", C_CASES, indirect=["target"])
def test_a_c_host_exits_cleanly_while_the_sdk_is_busy(programs, mode, transport, target, program):
    url, ca_file = target
    run_many(lambda seed: [str(programs[program]), mode, transport, url, str(seed), *([ca_file] if ca_file else [])],
             C_RUNS)


PYTHON_CASES = [  # mode, transport, target
    ("leaked", "curl", "bad TLS"),
    ("alive", "curl", "bad TLS"),
    ("destroyed", "curl", "bad TLS"),
    ("alive", "host", "bad TLS"),
    ("event-loop", "host", "bad TLS"),
]


@pytest.mark.slow
@pytest.mark.parametrize("mode,transport,target", PYTHON_CASES, indirect=["target"])
def test_a_python_interpreter_exits_cleanly_while_the_sdk_is_busy(mode, transport, target):
    url, _ = target
    package = os.path.dirname(os.path.dirname(os.path.abspath(ae.__file__)))  # the accessenabler under test
    env = dict(os.environ, AE_LIBRARY=str(ae.LIBRARY_PATH),
               PYTHONPATH=os.pathsep.join([package, os.environ.get("PYTHONPATH", "")]))
    run_many(lambda seed: [sys.executable, str(ROOT / "Tests/python/exit_child.py"), mode, transport, url, str(seed)],
             PYTHON_RUNS, env=env)
