import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractionRequestContent, extractWithModel } from '../../src-main/engine/documents/extractModel.ts';
import { createClient } from '../../src-main/llm/index.ts';
import {
  MODEL_IMAGE_MAX_PIXELS,
  MODEL_IMAGE_MAX_SIDE,
  MODEL_MAX_PAGE_IMAGES,
  type ReadDocument,
} from '../../src-main/engine/documents/types.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import { startModelServer, type ModelServer } from '../helpers/modelServer.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import { filesForm } from './builders.ts';

const HAIKU = 'anthropic:claude-haiku-4-5';
const schema = {
  type: 'object',
  properties: {
    full_name: { type: 'string', title: 'Full name' },
    city: { type: 'string', title: 'City' },
    employer: { type: 'string', title: 'Employer' },
  },
};

/** A white image of `width` × `height` with the lines in black, as a scanner gives. */
async function scan(width: number, height: number, lines: string[]): Promise<Buffer> {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#fff';
  context.fillRect(0, 0, width, height);
  context.fillStyle = '#000';
  context.font = `${Math.round(height / (lines.length * 3))}px sans-serif`;
  for (const [i, line] of lines.entries()) context.fillText(line, 30, ((i + 1) * height) / (lines.length + 1));
  return canvas.encode('png');
}

interface SentBlock {
  type: string;
  text?: string;
  source?: { type: string; media_type: string; data: string };
}

describe('page images go to the model for pages without a text layer', () => {
  let svc: TestService;
  let model: ModelServer;
  beforeAll(async () => {
    model = await startModelServer();
    process.env.PORTICO_ANTHROPIC_BASE_URL = model.anthropicBaseUrl;
    svc = await startService(undefined, {
      secrets: memorySecrets({ 'provider/anthropic': 'sk-ant-test' }),
      llmRetry: { maxRetries: 0, timeoutMs: 10_000 },
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.dispose();
    await model?.close();
    delete process.env.PORTICO_ANTHROPIC_BASE_URL;
  });

  it('the one extract_values call carries an image of each scanned page (scaled within the caps) and none for text pages', async () => {
    // A PDF whose page 1 has a text layer and page 2 is only a scanned image; and a large scanned PNG.
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    pdf.addPage([400, 200]).drawText('Employer: Analytical Engines Ltd', { x: 20, y: 100, size: 14, font });
    const pageScan = await pdf.embedPng(await scan(900, 160, ['Full name: Ada Lovelace']));
    pdf.addPage([450, 80]).drawImage(pageScan, { x: 0, y: 0, width: 450, height: 80 });
    const big = await scan(3000, 2000, ['City: London']);
    const form = filesForm([
      { name: 'mixed.pdf', data: Buffer.from(await pdf.save()) },
      { name: 'big.png', data: big },
      { name: 'note.txt', data: Buffer.from('Reference: 42') },
    ]);
    const created = await jsonOf(await svc.api('/documents/default', { method: 'POST', body: form }));
    const id = String((created.body as { document_bundle_id: string }).document_bundle_id);
    const deadline = Date.now() + 120_000;
    let status = 'processing';
    while (status === 'processing' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (
        (await (
          await svc.request('getDocumentBundle', { params: { org_id: 'default', document_bundle_id: id } })
        ).json()) as { status: string }
      ).status;
    }
    expect(status).toBe('completed');
    // The images are kept in the bundle's folder: the scanned page 2 of file 0 and page 1 of file 1.
    expect(
      readdirSync(join(svc.dataDir, 'documents', id))
        .filter((f) => f.endsWith('.jpg'))
        .sort(),
    ).toEqual(['0.p2.jpg', '1.p1.jpg']);

    expect(
      (
        await svc.request('createPortal', {
          params: { org_id: 'default' },
          body: {
            endpoint_name: 'scans',
            start_url: 'http://127.0.0.1:9/form',
            task: 'Fill it',
            form_schema: schema,
            assist_model: HAIKU,
          },
        })
      ).status,
    ).toBe(200);
    model.reset([{ toolCalls: [{ name: 'extract_values', input: { values: [] } }] }]);
    const preview = await svc.send('previewDocumentExtraction', {
      params: { org_id: 'default', document_bundle_id: id },
      query: { endpoint_name: 'scans' },
    });
    expect(preview.status).toBe(200);
    expect(model.requests).toHaveLength(1);
    const content = model.requests[0]?.body.messages[0].content as SentBlock[];
    const images = content.filter((b) => b.type === 'image');
    expect(images).toHaveLength(2);
    // Each image follows a label naming its document and page; text pages (mixed.pdf page 1, note.txt) have none.
    const labels = content.flatMap((b, i) => (b.type === 'image' ? [content[i - 1]?.text ?? ''] : []));
    expect(labels[0]).toMatch(/^Image of document "mixed\.pdf", page 2 /);
    expect(labels[1]).toMatch(/^Image of document "big\.png", page 1 /);
    expect(content.some((b) => b.text?.includes('"mixed.pdf", page 1'))).toBe(false);
    expect(content.some((b) => b.text?.includes('Image of document "note.txt"'))).toBe(false);
    for (const image of images) {
      expect(image.source?.type).toBe('base64');
      expect(image.source?.media_type).toBe('image/jpeg');
      const decoded = await loadImage(Buffer.from(image.source?.data ?? '', 'base64'));
      expect(Math.max(decoded.width, decoded.height)).toBeLessThanOrEqual(MODEL_IMAGE_MAX_SIDE);
      expect(decoded.width * decoded.height).toBeLessThanOrEqual(MODEL_IMAGE_MAX_PIXELS);
    }
    // The 3000×2000 scan was scaled down (within 1.15 MP), keeping its shape.
    const bigImage = await loadImage(Buffer.from(images[1]?.source?.data ?? '', 'base64'));
    expect(bigImage.width).toBeGreaterThan(1000);
    expect(bigImage.width / bigImage.height).toBeCloseTo(1.5, 1);

    // DELETE takes the images with the bundle.
    expect(
      (await svc.request('deleteDocumentBundle', { params: { org_id: 'default', document_bundle_id: id } })).status,
    ).toBe(204);
    expect(existsSync(join(svc.dataDir, 'documents', id))).toBe(false);
  }, 180_000);
});

describe('page images through an OpenAI-compatible model', () => {
  let model: ModelServer;
  beforeAll(async () => {
    model = await startModelServer();
  });
  afterAll(async () => model?.close());

  it('go as image_url data URLs after their label, in the one call; the text page has none', async () => {
    const jpeg = (await createCanvas(40, 20).encode('jpeg', 80)).toString('base64');
    const docs: ReadDocument[] = [
      {
        name: 'scan.pdf',
        contentType: 'application/pdf',
        size: 1,
        pages: 2,
        fields: [],
        pageTexts: [
          { page: 1, text: 'Employer: Analytical Engines Ltd', ocr: false },
          { page: 2, text: 'City: London', ocr: true, imageBase64: jpeg },
        ],
      },
    ];
    model.reset([
      {
        toolCalls: [
          {
            name: 'extract_values',
            input: { values: [{ key: 'city', value: 'London', document: 'scan.pdf', quote: 'City: London' }] },
          },
        ],
      },
    ]);
    const client = await createClient('openai-compatible', {
      modelId: 'openai-compatible:local-vision',
      apiKey: undefined,
      baseUrl: model.openaiBaseUrl,
      retry: { maxRetries: 0, timeoutMs: 10_000 },
    });
    const result = await extractWithModel(client, docs, schema);
    expect(result.form_data).toMatchObject({ city: 'London', employer: 'Analytical Engines Ltd' });
    expect(result.sources.city).toEqual({ document: 'scan.pdf', page: 2, text: 'City: London', ocr: true });
    expect(model.requests).toHaveLength(1);
    const user = (
      (model.requests[0] as (typeof model.requests)[number]).body.messages as { role: string; content: unknown }[]
    ).find((m) => m.role === 'user');
    const parts = user?.content as { type: string; text?: string; image_url?: { url: string } }[];
    const images = parts.filter((p) => p.type === 'image_url');
    expect(images.map((p) => p.image_url?.url)).toEqual([`data:image/jpeg;base64,${jpeg}`]);
    expect(parts[parts.indexOf(images[0] as (typeof parts)[number]) - 1]?.text).toMatch(
      /^Image of document "scan\.pdf", page 2 /,
    );
  });
});

describe('extractionRequestContent', () => {
  it(`sends at most ${MODEL_MAX_PAGE_IMAGES} page images, only of pages read by OCR`, () => {
    const pages = (ocr: boolean) =>
      Array.from({ length: 6 }, (_, i) => ({ page: i + 1, text: `page ${i + 1}`, ocr, imageBase64: 'AAAA' }));
    const docs: ReadDocument[] = [
      { name: 'a.pdf', contentType: 'application/pdf', size: 1, pages: 6, pageTexts: pages(true), fields: [] },
      { name: 'text.pdf', contentType: 'application/pdf', size: 1, pages: 6, pageTexts: pages(false), fields: [] },
      { name: 'b.pdf', contentType: 'application/pdf', size: 1, pages: 6, pageTexts: pages(true), fields: [] },
    ];
    const content = extractionRequestContent(docs, schema);
    expect(content.filter((b) => b.type === 'image')).toHaveLength(MODEL_MAX_PAGE_IMAGES);
    const labels = content
      .filter((b) => b.type === 'text')
      .slice(1)
      .map((b) => (b.type === 'text' ? b.text : ''));
    expect(labels.filter((l) => l.includes('"a.pdf"'))).toHaveLength(6);
    expect(labels.filter((l) => l.includes('"b.pdf"'))).toHaveLength(2);
    expect(labels.some((l) => l.includes('"text.pdf"'))).toBe(false);
  });
});
