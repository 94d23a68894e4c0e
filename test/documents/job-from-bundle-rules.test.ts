// tier: unit
import { describe, expect, it } from 'vitest';
import { AgentFailure, type AgentQuestion } from '../../src-main/agent/agentTypes.ts';
import type { JsonObject } from '../../src-main/contract/common.ts';
import { formDataFromBundle, type BundleJob, type BundleReader } from '../../src-main/engine/documents/extractJob.ts';
import type { ReadDocument } from '../../src-main/engine/documents/types.ts';

// The rules a bundle job applies after extraction, over hand-built read documents (the real bundle
// store, readers and a real job run are covered by job-from-bundle.test.ts).
const schema = {
  type: 'object',
  properties: {
    full_name: { type: 'string', title: 'Full name' },
    dob: { type: 'string', format: 'date', title: 'Date of birth' },
    pin: { type: 'string', title: 'PIN' },
    nickname: { type: 'string', title: 'Nickname' },
  },
  required: ['full_name', 'dob', 'pin'],
};

const docs: ReadDocument[] = [
  {
    name: 'a.txt',
    contentType: 'text/plain',
    size: 10,
    pages: 1,
    fields: [],
    pageTexts: [{ page: null, text: 'Full name: Ada Lovelace\nNickname: Ada\nPIN: 4321', ocr: false }],
  },
  {
    name: 'b.txt',
    contentType: 'text/plain',
    size: 10,
    pages: 1,
    fields: [],
    pageTexts: [{ page: null, text: 'Full name: Augusta Ada King\nNickname: The Enchantress', ocr: false }],
  },
];

function reader(status: string, read: ReadDocument[] = docs): BundleReader & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    waitUntilProcessed: async (_o, _i, ms) => (
      waits.push(ms), { status, error: status === 'failed' ? 'report.pdf: the PDF is encrypted' : null }
    ),
    read: async () => read,
  };
}

const job = (hitl: boolean): BundleJob => ({
  org_id: 'default',
  orchestrator_model: 'builtin:autofill',
  portal: { form_schema: schema },
  options: { document_bundle_id: 'b1', human_in_the_loop: hitl },
});

function hooks(answers: string[]) {
  const asked: AgentQuestion[] = [];
  const events: JsonObject[] = [];
  return {
    asked,
    events,
    hooks: {
      ask: async (q: AgentQuestion) => (asked.push(q), answers.shift() ?? ''),
      event: (_t: 'extraction', d: JsonObject) => void events.push(d),
      log: () => {},
    },
  };
}

describe('a job from a bundle: what the documents do not settle', () => {
  it('with a human: asks which of two values, and names a required property nothing supplies; secrets stay out of the event', async () => {
    const h = hooks(['Augusta Ada King', '1815-12-10', 'The Enchantress']);
    const data = await formDataFromBundle({ documents: reader('completed') }, job(true), h.hooks);
    expect(data).toEqual({
      full_name: 'Augusta Ada King',
      dob: '1815-12-10',
      pin: '4321',
      nickname: 'The Enchantress',
    });
    expect(h.asked.map((q) => [q.question, q.options])).toEqual([
      ['Which Full name should the form use?', ['Ada Lovelace', 'Augusta Ada King']],
      ['What is Date of birth?', []],
      ['Which Nickname should the form use?', ['Ada', 'The Enchantress']],
    ]);
    expect(h.asked[1]?.message).toContain('dob');
    const [event] = h.events;
    expect(event).toMatchObject({
      document_bundle_id: 'b1',
      extractor: 'builtin',
      missing: ['full_name', 'dob', 'nickname'],
      hidden_keys: ['pin'],
    });
    expect(JSON.stringify(event)).not.toContain('4321');
    expect((event as { sources: Record<string, { text: string }> }).sources.pin?.text).toBe('[redacted]');
  });

  it('without a human: fails naming the required keys, never picking a value; waits 60 s for a bundle still processing', async () => {
    const r = reader('completed');
    await expect(formDataFromBundle({ documents: r }, job(false), hooks([]).hooks)).rejects.toThrow(
      new AgentFailure(
        "The documents do not settle 'full_name', 'dob', which the form requires; start the job with human_in_the_loop to answer, or with form_data",
      ),
    );
    expect(r.waits).toEqual([60_000]);
    await expect(formDataFromBundle({ documents: reader('processing') }, job(false), hooks([]).hooks)).rejects.toThrow(
      'The document bundle was still being processed after 60 s; the job did not start',
    );
    await expect(formDataFromBundle({ documents: reader('failed') }, job(true), hooks([]).hooks)).rejects.toThrow(
      'The document bundle could not be read: report.pdf: the PDF is encrypted',
    );
  });

  it('an answer that does not fit the property fails the job rather than sending it', async () => {
    const h = hooks(['Ada Lovelace', 'sometime in winter']);
    await expect(formDataFromBundle({ documents: reader('completed') }, job(true), h.hooks)).rejects.toThrow(
      /Date of birth does not fit the form: 'sometime in winter' is not a date/,
    );
  });
});
