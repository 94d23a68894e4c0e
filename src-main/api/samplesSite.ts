import type { FastifyInstance, FastifyReply } from 'fastify';

import { SampleName } from '../contract/sample.ts';
import type { SampleService } from '../engine/samples/sampleService.ts';
import {
  SAMPLE_PAGE_CSP,
  answerSample,
  confirmationPage,
  notFoundPage,
  type Fields,
} from '../engine/samples/sampleSite.ts';

/** A sample form posts a handful of short fields; anything larger is not one of its forms. */
const BODY_LIMIT = 64 * 1024;
const MAX_FIELDS = 100;

function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': SAMPLE_PAGE_CSP,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    })
    .send(html);
}

/** Form fields of a urlencoded body: the first value of each name, at most MAX_FIELDS names. */
function parseFields(body: string): Fields | null {
  const fields: Fields = Object.create(null) as Fields;
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(fields, name)) continue;
    if (Object.keys(fields).length >= MAX_FIELDS) return null;
    fields[name] = value;
  }
  return fields;
}

/**
 * The sample site (`/samples/<sample>/<step>`), outside the API's route table: HTML pages for people and
 * for jobs, no API key (like any website), no script on its pages. Accepted applications are recorded
 * through `samples` and answered with a redirect to their confirmation page.
 */
export function installSamplesSite(app: FastifyInstance, samples: SampleService): void {
  void app.register(async (site) => {
    site.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: BODY_LIMIT },
      (_req, body, done) => {
        done(null, parseFields(String(body)));
      },
    );
    const handle = async (
      method: string,
      sample: string,
      step: string,
      body: unknown,
      reply: FastifyReply,
    ): Promise<FastifyReply> => {
      const name = SampleName.safeParse(sample);
      if (!name.success) return sendPage(reply, 404, notFoundPage());
      if (method === 'POST' && (body === null || typeof body !== 'object')) return sendPage(reply, 400, notFoundPage());
      const answer = answerSample(method, name.data, step, (body ?? {}) as Fields);
      if (answer.accepted) {
        const reference = samples.accept(answer.accepted.sample, answer.accepted.fields);
        return reply
          .code(303)
          .header('location', `/samples/${name.data}/done?ref=${encodeURIComponent(reference)}`)
          .header('cache-control', 'no-store')
          .send();
      }
      return sendPage(reply, answer.status, answer.html ?? notFoundPage());
    };
    site.get<{ Params: { sample: string; step: string }; Querystring: { ref?: string } }>(
      '/samples/:sample/:step',
      async (request, reply) => {
        const { sample, step } = request.params;
        if (step === 'done') {
          const name = SampleName.safeParse(sample);
          const reference = typeof request.query.ref === 'string' ? request.query.ref : '';
          let found = false;
          try {
            found = name.success && samples.submission(reference).sample === name.data;
          } catch {
            found = false;
          }
          return found && name.success
            ? sendPage(reply, 200, confirmationPage(name.data, reference))
            : sendPage(reply, 404, notFoundPage());
        }
        return handle('GET', sample, step, undefined, reply);
      },
    );
    site.post<{ Params: { sample: string; step: string } }>(
      '/samples/:sample/:step',
      { bodyLimit: BODY_LIMIT },
      async (request, reply) => handle('POST', request.params.sample, request.params.step, request.body, reply),
    );
    site.get('/samples', async (_request, reply) =>
      reply.code(303).header('location', '/samples/parking-permit/start').send(),
    );
  });
}
