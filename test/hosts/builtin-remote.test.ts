// builtin:autofill on remote browser hosts (issue 22): the real filler on a Chromium debugging host with a
// recording, and a Playwright server host that dies while the form is being sent. Hosts run in network
// namespaces with a /tmp of their own (needs root: ip netns, as in CI); where a browser ran is read from the
// form server (the source address of its requests). test/hosts/remote-jobs.test.ts covers scripted jobs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { netnsAvailable } from '../helpers/netns.ts';
import { REGISTRATION_SUBMIT, registrationFields } from '../helpers/registrationForm.ts';
import { jsonOf } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { type HostRig, startHostRig } from './hostRig.ts';

const REGISTRATION_HTML = readFileSync(
  join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'forms', 'registration.html'),
  'utf8',
);

describe.skipIf(!netnsAvailable())(
  'builtin:autofill on remote browser hosts (needs root: ip netns)',
  { timeout: 150_000 },
  () => {
    let rig: HostRig;
    let scratch: string;
    /** Submissions held open (never answered): the host dies while the form is being sent. */
    const held: { from: string | undefined }[] = [];

    beforeAll(async () => {
      process.env.PORTICO_HEADLESS = '1';
      scratch = await mkdtemp(join(tmpdir(), 'portico-hosts-'));
      rig = await startHostRig({
        hosts: [
          { name: 'pw-1', engine: 'playwright', max_browsers: 1, labels: ['pw'] },
          { name: 'cdp-1', engine: 'cdp', max_browsers: 1, labels: ['cdp'] },
        ],
        localMaxBrowsers: 0,
        handlers: {
          '/hold/form': (_req, res) => {
            res
              .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
              .end(REGISTRATION_HTML.replace(REGISTRATION_SUBMIT, '/submit/hold'));
          },
          '/submit/hold': (req) => {
            held.push({ from: req.socket.remoteAddress });
          },
        },
      });
      await rig.portal('doomed', { browser_host_labels: ['pw'] }, '/hold/form');
      await rig.portal('steady', { browser_host_labels: ['cdp'] });
    });
    afterAll(async () => {
      await rig?.close();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    it('a host killed while its form is being sent: the job fails naming it and is not retried; a recorded job on another host completes', async () => {
      const doomed = await rig.start('doomed', 5);
      // The form was filled and sent from pw-1; its answer never comes, and then the host is gone.
      await until(() => held.length === 1, 'the doomed job to send its form', 60_000);
      expect(held[0]?.from).toBe(rig.hosts[0]!.address);
      const steady = await rig.start('steady', 6, { record_video: true });
      rig.hosts[0]!.kill();
      const failed = await rig.finish('doomed', doomed);
      expect(failed.status).toBe('failed');
      expect(String(failed.error)).toContain('pw-1');
      // Nothing was retried elsewhere: a form may have been submitted.
      expect(held).toHaveLength(1);

      const completed = await rig.finish('steady', steady);
      expect(completed.status, String(completed.error)).toBe('completed');
      const post = rig.forms.postsTo(REGISTRATION_SUBMIT).at(-1);
      expect(post?.from).toBe(rig.hosts[1]!.address);
      expect(post?.fields).toEqual(registrationFields(6));
      const hosts = (
        await jsonOf(
          await rig.svc.api('/admin/hosts', { key: null, headers: { 'x-console-token': rig.svc.consoleToken } }),
        )
      ).body as { hosts: { name: string; reachable: boolean }[] };
      expect(hosts.hosts.find((h) => h.name === 'pw-1')?.reachable).toBe(false);
      expect(hosts.hosts.find((h) => h.name === 'cdp-1')?.reachable).toBe(true);

      // The recording of the remote page (screencast over the DevTools connection) is a playable WebM.
      expect(completed.video_recording_url).toBe(`${rig.svc.url}/task/default/steady/recording?job_id=${steady}`);
      const res = await rig.svc.api(`/task/default/steady/recording?job_id=${steady}`);
      expect(res.headers.get('content-type')).toBe('video/webm');
      const file = join(scratch, 'steady.webm');
      await writeFile(file, Buffer.from(await res.arrayBuffer()));
      const probe = JSON.parse(
        execFileSync(
          'ffprobe',
          ['-v', 'error', '-show_entries', 'stream=codec_name,width:format=duration', '-of', 'json', file],
          { encoding: 'utf8' },
        ),
      ) as {
        streams: { codec_name: string; width: number }[];
        format: { duration: string };
      };
      expect(probe.streams[0]?.codec_name).toMatch(/^vp[89]$/);
      expect(probe.streams[0]?.width).toBeGreaterThan(0);
      expect(Number(probe.format.duration)).toBeGreaterThan(0);
    });
  },
);
