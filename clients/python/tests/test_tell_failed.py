"""Study.tell(trial, failed=True, reason=...): the body sent, against a fake server that records it."""

from __future__ import annotations

import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List

import cbandit


class Recorder(BaseHTTPRequestHandler):
    bodies: List[Dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 - the standard library's name
        n = int(self.headers.get("Content-Length", "0"))
        Recorder.bodies.append({"path": self.path, "body": json.loads(self.rfile.read(n)),
                                "key": self.headers.get("Idempotency-Key")})
        out = json.dumps({"decision_id": 3, "applied": ["failed"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args: Any) -> None:
        pass


class TellFailedTest(unittest.TestCase):
    def setUp(self) -> None:
        Recorder.bodies = []
        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{self.srv.server_address[1]}"
        self.study = cbandit.Study(cbandit.Client(url), {"id": "s-1", "spec": {"name": "s"}})

    def tearDown(self) -> None:
        self.srv.shutdown()
        self.srv.server_close()

    def test_body(self) -> None:
        trial = cbandit.Trial(decision_id=3, round=3, x=[0.5])
        self.study.tell(trial, failed=True, reason="OOM")
        self.study.tell(4, failed=True)
        self.study.tell(5, reward=1.5, costs=[0.25])
        self.assertEqual([b["path"] for b in Recorder.bodies], ["/studies/s-1/observations"] * 3)
        self.assertEqual(Recorder.bodies[0]["body"], {"decision_id": 3, "failed": True, "reason": "OOM"})
        self.assertEqual(Recorder.bodies[1]["body"], {"decision_id": 4, "failed": True, "reason": ""})
        self.assertEqual(Recorder.bodies[2]["body"], {"decision_id": 5, "reward": 1.5, "costs": [0.25]})
        self.assertTrue(all(b["key"] for b in Recorder.bodies))  # retried safely, as every tell

    def test_refused_before_sending(self) -> None:
        with self.assertRaisesRegex(ValueError, "failed=True carries no reward"):
            self.study.tell(3, reward=1.0, failed=True)
        with self.assertRaisesRegex(ValueError, "failed=True carries no reward"):
            self.study.tell(3, costs=[1.0], failed=True)
        with self.assertRaisesRegex(ValueError, "reason='OOM' is given only with failed=True"):
            self.study.tell(3, reward=1.0, reason="OOM")
        self.assertEqual(Recorder.bodies, [])


if __name__ == "__main__":
    unittest.main()
