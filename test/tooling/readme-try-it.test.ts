/**
 * The README's "Try it" section, run literally: every command of its sh blocks, in order, through `sh`
 * against `npm run serve` on a fresh data folder, with the key that first start printed. Placeholders
 * (`<job_id>`, `<question_id>`, `<reference>`) are filled from the answers before them, as a reader does;
 * a status command is run again until the job stops moving, as a reader would after "a few seconds".
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDataDir } from '../helpers/service.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

interface Status {
  status: string;
  result?: { reference?: string; receipt?: unknown; submitted?: boolean } | null;
  events?: Array<{ type: string; data: { question_id?: string; question?: string; options?: string[] } }>;
}

/** The commands of the section's sh blocks: continuation lines joined, comments and blank lines dropped. */
function commandsOf(section: string): string[] {
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => (m[1] ?? '').replace(/\\\n\s*/g, ' ').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
}

describe('README "Try it"', () => {
  const dirs: string[] = [];
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exit = new Promise<void>((resolve) => child?.on('exit', () => resolve()));
      child.kill('SIGTERM');
      await exit;
    }
    // npm dies of the signal at once; the service under it may still be closing its browser in the data folder.
    for (
      let i = 0;
      i < 60 && dirs.some((dir) => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes(dir));
      i += 1
    ) {
      await new Promise((r) => setTimeout(r, 250));
    }
    for (const dir of dirs) await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  it('the commands as written complete the parking-permit sample with a reference, and the library-card sample through its question', async () => {
    const readme = await readFile(`${ROOT}/README.md`, 'utf8');
    const section = readme.split(/^## /m).find((s) => s.startsWith('Try it')) ?? '';
    const commands = commandsOf(section);
    expect(commands[0]).toMatch(/^export KEY=pk_org_/);

    const dataDir = await makeDataDir();
    dirs.push(dataDir);
    child = spawn('npm', ['run', 'serve', '--', '--port', '0', '--data-dir', dataDir], {
      cwd: ROOT,
      env: { ...process.env, PORTICO_HEADLESS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line in 90 s; stderr: ${stderr}`)), 90_000);
      child?.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n/m.exec(stdout);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child?.on('exit', (code) => reject(new Error(`exited ${code} before listening; stderr: ${stderr}`)));
    });
    const key = /Organization API key \(org 'default'\):\s+(pk_org_\S+)/.exec(stderr)?.[1];
    expect(key).toBeDefined();

    const filled = { job_id: '', question_id: '', reference: '' };
    const statuses: Status[] = [];
    const submissions: Array<{ reference: string; fields: Record<string, string> }> = [];
    for (const command of commands.slice(1)) {
      const line = command
        .replaceAll('http://127.0.0.1:8787', url)
        .replaceAll('<job_id>', filled.job_id)
        .replaceAll('<question_id>', filled.question_id)
        .replaceAll('<reference>', filled.reference);
      const once = async (): Promise<Record<string, unknown>> => {
        const { stdout: out } = await run('sh', ['-c', line], {
          env: { ...process.env, KEY: key },
          maxBuffer: 16 * 1024 * 1024,
        });
        return JSON.parse(out) as Record<string, unknown>;
      };
      let answer = await once();
      if (line.includes('/status?')) {
        for (let i = 0; i < 300 && ['queued', 'running'].includes(String(answer.status)); i += 1) {
          await new Promise((r) => setTimeout(r, 300));
          answer = await once();
        }
        const status = answer as unknown as Status;
        statuses.push(status);
        filled.reference = status.result?.reference ?? filled.reference;
        filled.question_id =
          status.events?.findLast((e) => e.type === 'question')?.data.question_id ?? filled.question_id;
      } else if (typeof answer.job_id === 'string') filled.job_id = answer.job_id;
      else if (line.includes('/submissions/'))
        submissions.push(answer as unknown as { reference: string; fields: Record<string, string> });
      else expect(answer, line).not.toHaveProperty('detail');
    }

    expect(statuses.map((s) => s.status)).toEqual(['completed', 'waiting_for_input', 'completed']);
    const [permit, question, card] = statuses;
    expect(permit?.result?.reference).toMatch(/^PP-[A-Z0-9]{6}$/);
    // The receipt: the final request Portico saw leave (the check-your-answers post) and the site's answer.
    expect(permit?.result?.submitted).toBe(true);
    expect(permit?.result?.receipt).toMatchObject({
      method: 'POST',
      url: expect.stringMatching(/\/samples\/parking-permit\/submit$/),
      response_status: 303,
      body_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      fields: expect.objectContaining({
        full_name: 'Ada Lovelace',
        zone: 'B',
        vehicle_type: 'car',
        declaration: 'yes',
      }),
      unverified: [],
    });
    expect(submissions).toEqual([
      {
        reference: permit?.result?.reference,
        sample: 'parking-permit',
        received_at: expect.any(String),
        fields: {
          full_name: 'Ada Lovelace',
          email: 'ada@example.com',
          address_line_1: '12 Mill Lane',
          town: 'Riverside',
          postcode: 'RV1 2AB',
          registration: 'AB12 CDE',
          vehicle_type: 'car',
          zone: 'B',
          start_date: '2027-01-04',
          declaration: 'yes',
        },
      },
    ]);
    expect(question?.events?.findLast((e) => e.type === 'question')?.data.options).toEqual([
      'Central Library',
      'Riverside Library',
      'Hillcrest Library',
    ]);
    expect(card?.result?.reference).toMatch(/^LC-[A-Z0-9]{6}$/);
  }, 240_000);
});
