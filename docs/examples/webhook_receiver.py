"""Minimal Portico webhook receiver (Python 3 standard library only).

Run:  PORTICO_WEBHOOK_SECRET=whsec_... python3 webhook_receiver.py
Then set a portal's webhook_url to http://127.0.0.1:9000/hook
"""
import hashlib
import hmac
import json
import os
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = os.environ["PORTICO_WEBHOOK_SECRET"].encode()
seen_ids = set()  # deliveries are retried with the same X-Webhook-Id: process each id once


class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = json.loads(raw)
        # Either check works: Portico sends the canonical text itself.
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
        expected = hmac.new(SECRET, canonical, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, self.headers.get("X-Webhook-Signature", "")):
            self.send_response(401)
            self.end_headers()
            return
        delivery = self.headers.get("X-Webhook-Id")
        if delivery not in seen_ids:
            seen_ids.add(delivery)
            print(body["event_type"], body["job_id"], body["status"], body.get("question", {}).get("question", ""), flush=True)
        self.send_response(204)  # answer 2xx within 10 s, or Portico retries after 1 s, 3 s, 9 s
        self.end_headers()


HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "9000"))), Hook).serve_forever()
