import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src-main/llm/index.ts';
import { extractWithModel } from '../../src-main/engine/documents/extractModel.ts';
import type { ReadDocument } from '../../src-main/engine/documents/types.ts';
import { startModelServer, type ModelServer } from '../helpers/modelServer.ts';

const schema = {
  type: 'object',
  properties: {
    full_name: { type: 'string', title: 'Full name' },
    dob: { type: 'string', format: 'date', title: 'Date of birth' },
    employer: { type: 'string', title: 'Employer' },
    salary: { type: 'number', title: 'Annual salary' },
    city: { type: 'string', title: 'City' },
  },
  required: ['full_name', 'dob', 'employer', 'salary'],
};

const letter: ReadDocument = {
  name: 'letter.pdf',
  contentType: 'application/pdf',
  size: 1000,
  pages: 2,
  fields: [],
  pageTexts: [
    {
      page: 1,
      text: 'To whom it may concern,\nThis confirms that Ada Lovelace, born on 10 December 1815, works for Analytical Engines Ltd.',
      ocr: false,
    },
    { page: 2, text: 'Her salary is 52,000 a year.\nCity: London', ocr: true },
  ],
};

describe('extraction with a model (scripted model server, real SDK)', () => {
  let model: ModelServer;
  beforeAll(async () => {
    model = await startModelServer();
  });
  afterAll(async () => {
    await model?.close();
  });
  const client = () =>
    createClient('anthropic', {
      modelId: 'anthropic:claude-haiku-4-5',
      apiKey: 'sk-ant-test',
      baseUrl: model.anthropicBaseUrl,
      retry: { maxRetries: 0, timeoutMs: 10_000 },
    });

  it('takes values whose quote is in the text (with page and OCR marks), drops an invented one, and fills the rest by the built-in rules', async () => {
    model.reset([
      {
        toolCalls: [
          {
            name: 'extract_values',
            input: {
              values: [
                {
                  key: 'full_name',
                  value: 'Ada Lovelace',
                  document: 'letter.pdf',
                  quote: 'This confirms that Ada Lovelace, born',
                },
                { key: 'dob', value: '10 December 1815', document: 'letter.pdf', quote: 'born on 10 December  1815' },
                { key: 'salary', value: '52000', document: 'letter.pdf', quote: 'Her salary is 52,000 a year.' },
                // Invented: the quote is nowhere in the documents.
                { key: 'employer', value: 'Babbage & Co', document: 'letter.pdf', quote: 'works for Babbage & Co' },
                // A key the schema does not have is ignored.
                { key: 'password', value: 'x', document: 'letter.pdf', quote: 'Ada' },
              ],
            },
          },
        ],
      },
    ]);
    const r = await extractWithModel(await client(), [letter], schema);
    expect(r.form_data).toEqual({ full_name: 'Ada Lovelace', dob: '1815-12-10', salary: 52000, city: 'London' });
    expect(r.sources.full_name).toEqual({
      document: 'letter.pdf',
      page: 1,
      text: 'This confirms that Ada Lovelace, born',
    });
    expect(r.sources.salary).toEqual({
      document: 'letter.pdf',
      page: 2,
      text: 'Her salary is 52,000 a year.',
      ocr: true,
    });
    expect(r.sources.city).toEqual({ document: 'letter.pdf', page: 2, text: 'City: London', ocr: true });
    expect(r.missing).toEqual(['employer']);
    expect(r.reasons.employer).toMatch(/not in the documents/);
    expect(model.requests).toHaveLength(1);
    const [request] = model.requests;
    expect(request?.body.tools.map((t: { name: string }) => t.name)).toEqual(['extract_values']);
    expect(request?.raw).toContain('Analytical Engines Ltd');
    expect(request?.raw).toContain('\\"dob\\"; type string; format date');
  });

  it('a text value that is not in its own quote is dropped; a model value the built-in rules contradict is not guessed', async () => {
    model.reset([
      {
        toolCalls: [
          {
            name: 'extract_values',
            input: {
              values: [
                { key: 'full_name', value: 'Augusta Ada King', document: 'letter.pdf', quote: 'Ada Lovelace' },
                { key: 'city', value: 'Paris', document: 'letter.pdf', quote: 'To whom it may concern' },
                {
                  key: 'employer',
                  value: 'Analytical Engines Ltd',
                  document: 'letter.pdf',
                  quote: 'works for Analytical Engines Ltd.',
                },
              ],
            },
          },
        ],
      },
    ]);
    const r = await extractWithModel(await client(), [letter], schema);
    expect(r.form_data.full_name).toBeUndefined();
    expect(r.reasons.full_name).toMatch(/not in the text it quotes/);
    // "Paris" is not in its quote either; the built-in rules still read "City: London".
    expect(r.form_data.city).toBe('London');
    expect(r.form_data.employer).toBe('Analytical Engines Ltd');
    expect(r.missing).toEqual(expect.arrayContaining(['full_name', 'dob', 'salary']));
  });
});
