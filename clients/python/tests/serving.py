"""The ``cbandit serve`` the tests talk to: ``CBANDIT_URL`` (a running
server, no token), or one started from ``CBANDIT_BIN`` with ``--db memory:``
on a free loopback port."""

from __future__ import annotations

import os
import re
import subprocess
import unittest
import urllib.request
from typing import List, Tuple

_servers: List[subprocess.Popen] = []


def start_server(*extra: str) -> Tuple[subprocess.Popen, str]:
    """Starts ``cbandit serve`` (with the extra flags) and returns it with its URL."""
    binary = os.environ["CBANDIT_BIN"]
    proc = subprocess.Popen([binary, "serve", "--db", "memory:", "--addr", "127.0.0.1:0", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    m = re.search(r"listening on (http://\S+)", line)
    if not m:
        proc.kill()
        raise RuntimeError(f"cbandit serve did not start: {line!r}")
    _servers.append(proc)
    url = m.group(1)
    with urllib.request.urlopen(url + "/healthz", timeout=10) as r:
        assert r.status == 200
    return proc, url


def server_url() -> str:
    """The URL of CBANDIT_URL's server or of one started now; skips the
    module when neither variable is set."""
    if os.environ.get("CBANDIT_URL"):
        return os.environ["CBANDIT_URL"].rstrip("/")
    if os.environ.get("CBANDIT_BIN"):
        return start_server()[1]
    raise unittest.SkipTest("set CBANDIT_BIN (a cbandit binary) or CBANDIT_URL (a running server without token)")


def stop_servers() -> None:
    """Stops every server start_server started."""
    for p in _servers:
        p.terminate()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
    _servers.clear()
