"""Transport failures raise the client's own errors; asks and tells are retried
with idempotency keys and bounded backoff.

Fake servers on loopback drop, reset, stall or truncate; a proxy in front of
a live ``cbandit serve`` (``CBANDIT_BIN``) loses answers after the server
applied the request; a live server is stopped and killed mid-request, and
restarted while the client backs off.
"""

from __future__ import annotations

import http.client
import http.server
import json
import os
import re
import shutil
import signal
import socket
import socketserver
import struct
import subprocess
import tempfile
import threading
import time
import unittest
from typing import Callable, Dict, List, Optional, Tuple

import cbandit


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(binary: str, port: int, db: str) -> subprocess.Popen:
    """Starts ``cbandit serve`` on a loopback port and waits until it answers."""
    proc = subprocess.Popen([binary, "serve", "--db", db, "--addr", f"127.0.0.1:{port}"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    if not re.search(r"listening on http://", line):
        proc.kill()
        raise RuntimeError(f"cbandit serve did not start: {line!r}")
    return proc


def wait_stopped(pid: int) -> None:
    """Waits (up to 5 s) until every thread of pid is stopped, where /proc tells (Linux)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
            states = []
            for tid in tids:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    states.append(f.read().rsplit(")", 1)[1].split()[0])
        except OSError:
            return
        if all(st in ("T", "t") for st in states):
            return
        time.sleep(0.01)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)
    if proc.stdout:
        proc.stdout.close()


def read_head(conn: socket.socket) -> bytes:
    """Reads a request up to the end of its headers (and its short body, if any arrived with them)."""
    conn.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


class RawServer:
    """A loopback TCP server that hands each connection to ``behave``."""

    def __init__(self, behave: Callable[[socket.socket, int], None]) -> None:
        self.behave = behave
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.connections = 0
        self.closed = threading.Event()
        threading.Thread(target=self._loop, daemon=True).start()

    def _loop(self) -> None:
        while not self.closed.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._one, args=(conn, self.connections), daemon=True).start()

    def _one(self, conn: socket.socket, n: int) -> None:
        try:
            self.behave(conn, n)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.closed.set()
        self.sock.close()


def drop(conn: socket.socket, n: int) -> None:
    read_head(conn)  # then close without a word: http.client.RemoteDisconnected


def reset(conn: socket.socket, n: int) -> None:
    read_head(conn)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends RST


def truncate(conn: socket.socket, n: int) -> None:
    read_head(conn)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"studies\": [")


def hang(conn: socket.socket, n: int) -> None:
    read_head(conn)
    time.sleep(3)


def busy_then_ok(conn: socket.socket, n: int) -> None:
    read_head(conn)
    if n <= 2:
        body = b'{"error":{"status":503,"code":"unavailable","message":"restarting"}}'
        conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
    else:
        body = b'{"studies": []}'
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                     b"Connection: close\r\n\r\n%s" % (len(body), body))


def outage_then_ok(conn: socket.socket, n: int) -> None:
    """Six 503s (the store restarting, Retry-After: 0), then the answer."""
    read_head(conn)
    if n <= 6:
        body = b'{"error":{"status":503,"code":"unavailable","message":"the study store is unavailable"}}'
        conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
    else:
        body = b'{"suggestions": [{"decision_id": 3, "x": [0.5]}]}'
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                     b"Connection: close\r\n\r\n%s" % (len(body), body))


def paged(conn: socket.socket, n: int) -> None:
    """GET /studies in pages of one: a cursor, then a link, then the end."""
    head = read_head(conn).decode("latin-1")
    path = head.split(" ")[1]
    study = lambda i: {"id": f"s-{i}", "spec": {"name": f"study-{i}"}}  # noqa: E731
    if path == "/studies":
        answer = {"studies": [study(1)], "next": "c2"}
    elif path == "/studies?after=c2":
        answer = {"studies": [study(2)], "next": "/studies?page=3"}
    elif path == "/studies?page=3":
        answer = {"studies": [study(3)]}
    else:
        answer = {"studies": [], "unexpected": path}
    body = json.dumps(answer).encode()
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                 b"Connection: close\r\n\r\n%s" % (len(body), body))


class FakeServerTest(unittest.TestCase):
    """Each failure of the standard library's HTTP stack comes out as cbandit.TransportError."""

    def failure(self, behave: Callable[[socket.socket, int], None], call: Callable[[cbandit.Client], object],
                retries: int = 0, timeout: float = 5) -> Tuple[cbandit.TransportError, RawServer]:
        srv = RawServer(behave)
        self.addCleanup(srv.close)
        client = cbandit.Client(srv.url, timeout=timeout, retries=retries, backoff=0.01, max_backoff=0.05)
        with self.assertRaises(cbandit.APIError) as e:
            call(client)
        self.assertIsInstance(e.exception, cbandit.TransportError, repr(e.exception))
        self.assertEqual(e.exception.status, 0)
        return e.exception, srv

    def test_dropped_connection(self) -> None:
        e, _ = self.failure(drop, lambda c: c.studies())
        self.assertEqual(e.code, "connection_lost")
        self.assertIsInstance(e.cause, http.client.RemoteDisconnected)
        self.assertTrue(e.delivered)

    def test_reset_connection(self) -> None:
        e, _ = self.failure(reset, lambda c: c.studies())
        self.assertEqual(e.code, "connection_lost")
        self.assertIsInstance(e.cause, (ConnectionResetError, http.client.RemoteDisconnected))

    def test_truncated_answer(self) -> None:
        e, _ = self.failure(truncate, lambda c: c.studies())
        self.assertEqual(e.code, "connection_lost")
        self.assertIsInstance(e.cause, http.client.IncompleteRead)

    def test_timeout(self) -> None:
        t0 = time.monotonic()
        e, _ = self.failure(hang, lambda c: c.studies(), timeout=0.3)
        self.assertEqual(e.code, "timeout")
        self.assertIsInstance(e.cause, (TimeoutError, socket.timeout))
        self.assertLess(time.monotonic() - t0, 2.5)

    def test_refused(self) -> None:
        port = free_port()  # closed again: nothing listens there
        client = cbandit.Client(f"http://127.0.0.1:{port}", retries=2, backoff=0.01, max_backoff=0.02)
        with self.assertRaises(cbandit.TransportError) as e:
            client.get_study("anything")
        self.assertEqual((e.exception.status, e.exception.code, e.exception.delivered), (0, "unreachable", False))
        self.assertEqual(e.exception.attempts, 3)
        self.assertIn(str(port), str(e.exception))

    def test_reads_are_retried_with_bounded_backoff(self) -> None:
        e, srv = self.failure(drop, lambda c: c.studies(), retries=3)
        self.assertEqual((e.attempts, srv.connections), (4, 4))

    def test_busy_server_is_asked_again(self) -> None:
        srv = RawServer(busy_then_ok)
        self.addCleanup(srv.close)
        client = cbandit.Client(srv.url, retries=3, backoff=0.01, max_backoff=0.05)
        self.assertEqual(client.studies(), [])
        self.assertEqual(srv.connections, 3)
        srv2 = RawServer(busy_then_ok)
        self.addCleanup(srv2.close)
        with self.assertRaises(cbandit.APIError) as e:  # without retries the 503 is the error
            cbandit.Client(srv2.url, retries=0).studies()
        self.assertEqual((e.exception.status, e.exception.code), (503, "unavailable"))
        self.assertNotIsInstance(e.exception, cbandit.TransportError)

    def test_outage_is_waited_out_beyond_retries(self) -> None:
        srv = RawServer(outage_then_ok)
        self.addCleanup(srv.close)
        client = cbandit.Client(srv.url, retries=2, backoff=0.01, max_backoff=0.05)
        answer = client.request("POST", "/studies/s/suggestions", {"count": 1}, {"Idempotency-Key": '"k"'})
        self.assertEqual(answer["suggestions"][0]["decision_id"], 3)
        self.assertEqual(srv.connections, 7)
        srv2 = RawServer(outage_then_ok)
        self.addCleanup(srv2.close)
        with self.assertRaises(cbandit.APIError) as e:  # not safe to repeat: the 503 is the error
            cbandit.Client(srv2.url, retries=2).request("POST", "/studies/s/enqueue", {"x": [0.5]}, retry=False)
        self.assertEqual((e.exception.status, srv2.connections), (503, 1))

    def test_study_list_in_pages(self) -> None:
        srv = RawServer(paged)
        self.addCleanup(srv.close)
        self.assertEqual([st.name for st in cbandit.Client(srv.url).studies()], ["study-1", "study-2", "study-3"])

    def test_creating_is_not_repeated_after_the_request_went_out(self) -> None:
        e, srv = self.failure(drop, lambda c: c.create_study(name="x", space={"type": "box", "lo": [0], "hi": [1]},
                                                             objective="f"), retries=3)
        self.assertEqual((e.attempts, srv.connections), (1, 1))


class LosingProxy:
    """An HTTP proxy in front of a live server that loses the answers of the
    first ``lose[suffix]`` requests whose path ends with that suffix: the
    server has applied them, the client sees the connection close."""

    def __init__(self, upstream: str, lose: Dict[str, int]) -> None:
        self.upstream = upstream
        self.lose = dict(lose)
        self.seen: List[Tuple[str, str, Optional[str], int]] = []  # method, path, Idempotency-Key, status
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def forward(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else None
                host, port = proxy.upstream.split("//")[1].split(":")
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
                hdrs = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                conn.request(self.command, self.path, body, hdrs)
                resp = conn.getresponse()
                data = resp.read()
                conn.close()
                proxy.seen.append((self.command, self.path, self.headers.get("Idempotency-Key"), resp.status))
                suffix = next((k for k in proxy.lose if self.path.endswith(k)), None)
                if suffix and proxy.lose[suffix] > 0:
                    proxy.lose[suffix] -= 1
                    self.close_connection = True
                    return  # no answer: the client's connection closes
                self.send_response(resp.status)
                for k in ("Content-Type", "Idempotent-Replayed", "Retry-After"):
                    if resp.getheader(k):
                        self.send_header(k, resp.getheader(k))
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = do_PATCH = forward

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@unittest.skipUnless(os.environ.get("CBANDIT_BIN"), "needs CBANDIT_BIN (a cbandit binary) to start live servers")
class LiveServerTest(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="cbandit-py-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.port = free_port()
        self.db = "sqlite:" + os.path.join(self.dir, "studies.db")
        self.proc = serve(os.environ["CBANDIT_BIN"], self.port, self.db)
        self.addCleanup(lambda: stop(self.proc))
        self.url = f"http://127.0.0.1:{self.port}"

    def study(self, client: cbandit.Client, name: str) -> cbandit.Study:
        return client.create_study(name=name, space={"type": "box", "lo": [0, 0], "hi": [1, 1]}, objective="yield",
                                   constraints=[{"name": "power", "threshold": 0.5}], algorithm="ckb-ucb", seed=3)

    def test_lost_answers_are_asked_again_with_the_same_key(self) -> None:
        """The server applies an ask and a tell whose answers are lost; the
        retries carry the same Idempotency-Key and get the first answers:
        one decision, one observation."""
        proxy = LosingProxy(self.url, {"/suggestions": 1, "/observations": 1})
        self.addCleanup(proxy.close)
        client = cbandit.Client(proxy.url, retries=3, backoff=0.01, max_backoff=0.05)
        study = self.study(client, "lossy")
        trial = study.ask()
        answer = study.tell(trial, reward=0.7, costs=[0.2])
        self.assertEqual(answer["applied"], ["reward", "costs"])  # the first answer, replayed
        asks = [s for s in proxy.seen if s[1].endswith("/suggestions")]
        tells = [s for s in proxy.seen if s[1].endswith("/observations")]
        self.assertEqual(len(asks), 2, proxy.seen)
        self.assertEqual(len(tells), 2, proxy.seen)
        self.assertEqual(asks[0][2], asks[1][2])
        self.assertEqual(tells[0][2], tells[1][2])
        self.assertNotEqual(asks[0][2], tells[0][2])
        s = cbandit.Client(self.url).get_study("lossy").summary()
        self.assertEqual((s["rounds"], s["reward_observed"], s["pending"]), (1, 1, 0))
        self.assertEqual(study.ask().round, 2)

    def test_without_retries_a_lost_answer_is_a_transport_error(self) -> None:
        proxy = LosingProxy(self.url, {"/suggestions": 1})
        self.addCleanup(proxy.close)
        study = self.study(cbandit.Client(proxy.url, retries=0), "lossy-once")
        with self.assertRaises(cbandit.TransportError) as e:
            study.ask(idempotency_key="job-17")
        self.assertEqual(e.exception.code, "connection_lost")
        self.assertEqual(study.ask(idempotency_key="job-17").decision_id, 1)  # the same trial, asked again by hand
        self.assertEqual(study.summary()["rounds"], 1)

    def test_server_killed_mid_request(self) -> None:
        """The server stops answering (SIGSTOP) and is killed while a request
        waits: the client raises TransportError, then connection refused."""
        client = cbandit.Client(self.url, retries=0, timeout=10)
        study = self.study(client, "killed")
        study.tell(study.ask(), reward=0.5, costs=[0.1])
        self.proc.send_signal(signal.SIGSTOP)
        wait_stopped(self.proc.pid)  # a signal is delivered asynchronously: on a busy machine a thread could still answer
        threading.Timer(0.5, self.proc.kill).start()
        t0 = time.monotonic()
        with self.assertRaises(cbandit.APIError) as e:
            study.summary()
        self.assertIsInstance(e.exception, cbandit.TransportError)
        self.assertEqual((e.exception.code, e.exception.delivered), ("connection_lost", True))  # reset by the kill
        self.assertLess(time.monotonic() - t0, 5)
        self.proc.wait(timeout=10)
        with self.assertRaises(cbandit.TransportError) as e:
            study.ask()
        self.assertEqual((e.exception.code, e.exception.delivered), ("unreachable", False))

    def test_ask_outlives_a_restart(self) -> None:
        """Killed server, restarted on the same database while the client backs off: the ask succeeds."""
        client = cbandit.Client(self.url, retries=8, backoff=0.1, max_backoff=0.4)
        study = self.study(client, "restarted")
        study.tell(study.ask(), reward=0.5, costs=[0.1])
        stop(self.proc)
        started: List[subprocess.Popen] = []

        def restart() -> None:
            started.append(serve(os.environ["CBANDIT_BIN"], self.port, self.db))
        timer = threading.Timer(0.6, restart)
        timer.start()
        try:
            trial = study.ask()
        finally:
            timer.join()
            for p in started:
                self.addCleanup(lambda p=p: stop(p))
        self.assertEqual(trial.round, 2)
        self.assertEqual(study.summary()["rounds"], 2)


if __name__ == "__main__":
    unittest.main()
