import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../src-main/app.ts';
import { govukWizard } from '../test/fixtures/forms/dynamicPages.ts';
import { startFormServer } from '../test/helpers/formServer.ts';
const site = await startFormServer(govukWizard().handlers);
const dataDir = await mkdtemp(join(tmpdir(), 'pb-'));
const notices: string[] = [];
const app = await startApp({ dataDir, port: 0, rendererDir: '/nonexistent', notice: (l) => notices.push(l) });
const key = /Organization API key[^:]*:\s+(\S+)/.exec(notices.join('\n'))?.[1] ?? '';
const api = async (path: string, body?: unknown) => (await (await fetch(`${app.url}${path}`, { method: body ? 'POST' : 'GET', headers: { 'x-api-key': key, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) })).json()) as Record<string, unknown>;
await api('/portals/default', { endpoint_name: 'f', start_url: site.url('/wizard/name'), task: 't' });
for (let i = 0; i < 2; i++) {
  const { job_id } = await api('/jobs/default/f/start', { form_data: { full_name: 'Ada Lovelace', contact: 'Email', email: 'ada@example.com', date_of_birth: '1990-12-10' } }) as { job_id: string };
  let s: Record<string, unknown> = {};
  for (;;) { s = await api(`/task/default/f/status?job_id=${job_id}`); if (['completed','failed'].includes(String(s.status))) break; await new Promise(r => setTimeout(r, 5)); }
  const logs = await (await fetch(`${app.url}/task/default/f/logs?job_id=${job_id}`, { headers: { 'x-api-key': key } })).text();
  const t0 = Date.parse(String(s.created_at));
  console.log('---', s.status, 'total', Date.parse(String(s.completed_at)) - t0);
  for (const m of logs.matchAll(/data: (\{.*\})/g)) { const d = JSON.parse(m[1]!); if (d.timestamp) console.log(Date.parse(d.timestamp) - t0, d.line.slice(0, 100)); }
}
await app.close(); await site.close();
