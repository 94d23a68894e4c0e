// Minimal Portico webhook receiver (Node 18+, no dependencies).
// Run:  PORTICO_WEBHOOK_SECRET=whsec_... node webhook-receiver.mjs
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = process.env.PORTICO_WEBHOOK_SECRET;
const seen = new Set(); // retries keep the same X-Webhook-Id: handle each delivery once

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks); // verify the raw bytes: they are the canonical text
    const expected = createHmac('sha256', secret).update(raw).digest();
    const given = Buffer.from(String(req.headers['x-webhook-signature'] ?? ''), 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.writeHead(401).end();
      return;
    }
    const body = JSON.parse(raw.toString('utf8'));
    const id = req.headers['x-webhook-id'];
    if (!seen.has(id)) {
      seen.add(id);
      console.log(body.event_type, body.job_id, body.status, body.question?.question ?? '');
    }
    res.writeHead(204).end(); // 2xx within 10 s
  });
}).listen(Number(process.env.PORT ?? 9000), '127.0.0.1');
