"""A webhook receiver in Python: verifies X-Webhook-Signature over the raw body and over the body
re-serialized with json.dumps(sort_keys=True, separators=(",", ":")), and prints one JSON line per
request. Paths script the answer: /ok, /status/<code>/<n> (first n requests get <code>, then 200),
/hang/<n> (first n requests get no answer for 12 s). The secret comes from argv[1]; the first line
printed is the port."""
import hashlib
import hmac
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = sys.argv[1].encode()
COUNTS = {}
LOCK = threading.Lock()


def sign(data: bytes) -> str:
    return hmac.new(SECRET, data, hashlib.sha256).hexdigest()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        received = time.time()
        signature = self.headers.get("X-Webhook-Signature", "")
        parsed = json.loads(raw)
        reserialized = json.dumps(parsed, sort_keys=True, separators=(",", ":")).encode()
        with LOCK:
            COUNTS[self.path] = COUNTS.get(self.path, 0) + 1
            n = COUNTS[self.path]
        parts = self.path.strip("/").split("/")
        status = 200
        if parts[0] == "status" and n <= int(parts[2]):
            status = int(parts[1])
        record = {
            "path": self.path,
            "n": n,
            "at": received,
            "raw_ok": hmac.compare_digest(sign(raw), signature),
            "reserialized_ok": hmac.compare_digest(sign(reserialized), signature),
            "same_bytes": raw == reserialized,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": parsed,
            "answered": status,
        }
        # One write per line under the lock: print() from several threads interleaves text and newline.
        with LOCK:
            sys.stdout.write(json.dumps(record) + "\n")
            sys.stdout.flush()
        if parts[0] == "hang" and n <= int(parts[1]):
            time.sleep(12)
        try:
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
        except (BrokenPipeError, ConnectionResetError):
            pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
