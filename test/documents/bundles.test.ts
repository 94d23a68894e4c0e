import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { buildRawZip } from '../helpers/rawZip.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import {
  acroFormPdf,
  docx,
  encryptedPdf,
  filesForm,
  flateBombPdf,
  nestedObjectsPdf,
  textPdf,
  xlsx,
} from './builders.ts';

interface Summary {
  name: string;
  content_type: string;
  size: number;
  pages: number | null;
  text_chars: number | null;
  error: string | null;
}
interface Bundle {
  id: string;
  status: string;
  documents: Summary[];
  error: string | null;
  created_at: string;
}
interface Field {
  name: string;
  value: string;
  kind: string;
  source: { document: string; page: number | null; text: string };
}

async function upload(
  svc: TestService,
  files: Parameters<typeof filesForm>[0],
  key?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await svc.api('/documents/default', {
    method: 'POST',
    body: filesForm(files),
    ...(key !== undefined && { key }),
  });
  return jsonOf(res) as Promise<{ status: number; body: Record<string, unknown> }>;
}

/** Polls GET until the bundle leaves `processing`. */
async function settled(svc: TestService, id: string, key = svc.orgKey, timeoutMs = 60_000): Promise<Bundle> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const bundle = (await (
      await svc.request('getDocumentBundle', { params: { org_id: 'default', document_bundle_id: id } }, { key })
    ).json()) as Bundle;
    if (bundle.status !== 'processing') return bundle;
    if (Date.now() > deadline) throw new Error(`bundle ${id} still processing`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function readDocs(
  svc: TestService,
  id: string,
  index: number,
): { pages: number; pageTexts: { page: number | null; text: string }[]; fields: Field[] } {
  return JSON.parse(readFileSync(join(svc.dataDir, 'documents', id, `${index}.read.json`), 'utf8'));
}

const dirEntries = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : []);

describe('document bundles', () => {
  let svc: TestService;
  let otherOrgKey: string;

  beforeAll(async () => {
    svc = await startService();
    otherOrgKey = String((await cli(svc.dataDir, ['org', 'create', 'other'])).json.api_key);
  }, 60_000);
  afterAll(async () => svc?.dispose());

  it('reads a text PDF, a filled AcroForm PDF, a DOCX, a CSV, an XLSX, JSON and text, with their sources', async () => {
    const files = [
      {
        name: 'letter.pdf',
        data: await textPdf([['Full name: Ada Lovelace', 'Date of birth: 1815-12-10'], ['Occupation: Mathematician']]),
        type: 'application/octet-stream',
      },
      { name: 'form.pdf', data: await acroFormPdf() },
      { name: 'cv.docx', data: await docx(['Curriculum vitae', 'Phone: +44 20 7946 0000', 'City: London']) },
      { name: 'people.csv', data: Buffer.from('first_name,last_name\nAda,Lovelace\n'), type: 'text/csv' },
      {
        name: 'sheet.xlsx',
        data: await xlsx({
          Applicant: [
            ['Field', 'Value'],
            ['Passport number', 'X1234567'],
          ],
        }),
      },
      // Named .txt and claimed as text: the bytes say JSON.
      {
        name: 'data.txt',
        data: Buffer.from(JSON.stringify({ applicant: { dob: '1815-12-10', tags: ['a', 'b'] } })),
        type: 'text/plain',
      },
      { name: 'note.txt', data: Buffer.from('Reference: ABC-123\nsee https://example.org\n'), type: 'text/plain' },
    ];
    const created = await upload(svc, files);
    expect(created.status).toBe(200);
    expect(created.body.status).toBe('processing');
    const id = String(created.body.document_bundle_id);
    const bundle = await settled(svc, id);
    expect(bundle.error).toBeNull();
    expect(bundle.status).toBe('completed');
    expect(bundle.documents.map((d) => [d.name, d.content_type, d.pages, d.error])).toEqual([
      ['letter.pdf', 'application/pdf', 2, null],
      ['form.pdf', 'application/pdf', 2, null],
      ['cv.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 1, null],
      ['people.csv', 'text/csv', 1, null],
      ['sheet.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 1, null],
      ['data.txt', 'application/json', 1, null],
      ['note.txt', 'text/plain', 1, null],
    ]);
    expect(bundle.documents.map((d) => d.size)).toEqual(files.map((f) => f.data.length));
    for (const d of bundle.documents) expect(d.text_chars).toBeGreaterThan(0);

    const letter = readDocs(svc, id, 0);
    expect(letter.pageTexts[1]?.text).toContain('Occupation: Mathematician');
    expect(bundle.documents[0]?.text_chars).toBe(letter.pageTexts.reduce((n, p) => n + p.text.length, 0));
    expect(letter.fields).toContainEqual({
      name: 'Full name',
      value: 'Ada Lovelace',
      kind: 'label_line',
      source: { document: 'letter.pdf', page: 1, text: 'Full name: Ada Lovelace' },
    });
    expect(letter.fields).toContainEqual(
      expect.objectContaining({
        name: 'Occupation',
        value: 'Mathematician',
        source: expect.objectContaining({ page: 2 }),
      }),
    );

    const form = readDocs(svc, id, 1).fields.filter((f) => f.kind === 'form_field');
    const byName = Object.fromEntries(form.map((f) => [f.name, f]));
    expect(byName['applicant.full_name']).toEqual({
      name: 'applicant.full_name',
      value: 'Ada Lovelace',
      kind: 'form_field',
      source: { document: 'form.pdf', page: 1, text: 'applicant.full_name: Ada Lovelace' },
    });
    expect(byName.email?.source.page).toBe(2);
    expect(byName.consent?.value).toBe('Yes');
    expect(byName.newsletter?.value).toBe('Off');
    expect(byName.plan?.value).toBe('premium');
    expect(byName.country).toMatchObject({ value: 'United Kingdom', source: { page: 2 } });
    expect(byName.left_empty).toBeUndefined();

    expect(readDocs(svc, id, 2).fields).toContainEqual({
      name: 'Phone',
      value: '+44 20 7946 0000',
      kind: 'label_line',
      source: { document: 'cv.docx', page: null, text: 'Phone: +44 20 7946 0000' },
    });
    expect(readDocs(svc, id, 3).fields).toEqual([
      {
        name: 'first_name',
        value: 'Ada',
        kind: 'csv',
        source: { document: 'people.csv', page: null, text: 'Ada, Lovelace' },
      },
      {
        name: 'last_name',
        value: 'Lovelace',
        kind: 'csv',
        source: { document: 'people.csv', page: null, text: 'Ada, Lovelace' },
      },
    ]);
    expect(readDocs(svc, id, 4).fields).toContainEqual({
      name: 'Passport number',
      value: 'X1234567',
      kind: 'table',
      source: { document: 'sheet.xlsx', page: 1, text: 'Passport number, X1234567' },
    });
    const json = readDocs(svc, id, 5).fields;
    expect(json).toContainEqual({
      name: 'applicant.dob',
      value: '1815-12-10',
      kind: 'json',
      source: { document: 'data.txt', page: null, text: 'applicant.dob: 1815-12-10' },
    });
    expect(json.map((f) => f.name)).toEqual(['applicant.dob', 'applicant.tags[0]', 'applicant.tags[1]']);
    const note = readDocs(svc, id, 6).fields;
    expect(note).toEqual([
      {
        name: 'Reference',
        value: 'ABC-123',
        kind: 'label_line',
        source: { document: 'note.txt', page: null, text: 'Reference: ABC-123' },
      },
    ]);
  }, 120_000);

  it('a scanned image and a PDF page without a text layer are read by OCR, their label lines with sources', async () => {
    const canvas = createCanvas(900, 160);
    const context = canvas.getContext('2d');
    context.fillStyle = '#fff';
    context.fillRect(0, 0, 900, 160);
    context.fillStyle = '#000';
    context.font = '40px sans-serif';
    context.fillText('Full name: Ada Lovelace', 30, 70);
    context.fillText('City: London', 30, 130);
    const png = await canvas.encode('png');
    const scanned = await PDFDocument.create();
    const image = await scanned.embedPng(png);
    scanned.addPage([450, 80]).drawImage(image, { x: 0, y: 0, width: 450, height: 80 });
    const created = await upload(svc, [
      { name: 'scan.png', data: png },
      { name: 'scan.pdf', data: Buffer.from(await scanned.save()) },
    ]);
    const id = String(created.body.document_bundle_id);
    const bundle = await settled(svc, id);
    expect(bundle.error).toBeNull();
    expect(bundle.documents.map((d) => [d.content_type, d.pages])).toEqual([
      ['image/png', 1],
      ['application/pdf', 1],
    ]);
    for (const [index, document] of [
      [0, 'scan.png'],
      [1, 'scan.pdf'],
    ] as const) {
      const read = readDocs(svc, id, index);
      expect(read.pageTexts[0]).toMatchObject({ page: 1, ocr: true });
      expect(read.fields).toContainEqual({
        name: 'City',
        value: 'London',
        kind: 'label_line',
        source: { document, page: 1, text: 'City: London' },
      });
      expect(read.fields.find((f) => f.name === 'Full name')?.value).toBe('Ada Lovelace');
    }
  }, 180_000);

  it('another org cannot see or delete the bundle; DELETE removes it and its files', async () => {
    const created = await upload(svc, [{ name: 'a.txt', data: Buffer.from('Name: A') }]);
    const id = String(created.body.document_bundle_id);
    await settled(svc, id);
    expect(
      await svc.send(
        'getDocumentBundle',
        { params: { org_id: 'default', document_bundle_id: id } },
        { key: otherOrgKey },
      ),
    ).toMatchObject({ status: 403 });
    expect(
      await svc.send(
        'getDocumentBundle',
        { params: { org_id: 'other', document_bundle_id: id } },
        { key: otherOrgKey },
      ),
    ).toEqual({ status: 404, body: { detail: 'Document bundle not found' } });
    expect(
      (
        await svc.request(
          'deleteDocumentBundle',
          { params: { org_id: 'other', document_bundle_id: id } },
          { key: otherOrgKey },
        )
      ).status,
    ).toBe(404);
    expect(existsSync(join(svc.dataDir, 'documents', id, '0'))).toBe(true);
    expect(
      (await svc.request('deleteDocumentBundle', { params: { org_id: 'default', document_bundle_id: id } })).status,
    ).toBe(204);
    expect(existsSync(join(svc.dataDir, 'documents', id))).toBe(false);
    expect(await svc.send('getDocumentBundle', { params: { org_id: 'default', document_bundle_id: id } })).toEqual({
      status: 404,
      body: { detail: 'Document bundle not found' },
    });
  }, 60_000);

  it('DELETE while the bundle is being read stops it and leaves no file behind', async () => {
    const big = await textPdf(Array.from({ length: 150 }, (_, i) => [`Name ${i}: value ${i}`]));
    const created = await upload(svc, [
      { name: 'big.pdf', data: big },
      { name: 'big2.pdf', data: big },
    ]);
    const id = String(created.body.document_bundle_id);
    expect(
      (await svc.request('deleteDocumentBundle', { params: { org_id: 'default', document_bundle_id: id } })).status,
    ).toBe(204);
    // Bundles are read one at a time: once a later one is read, the deleted one's reading is over.
    const after = await upload(svc, [{ name: 'after.txt', data: Buffer.from('Name: after') }]);
    expect((await settled(svc, String(after.body.document_bundle_id))).status).toBe('completed');
    expect(existsSync(join(svc.dataDir, 'documents', id))).toBe(false);
    expect(
      (await svc.request('getDocumentBundle', { params: { org_id: 'default', document_bundle_id: id } })).status,
    ).toBe(404);
  }, 60_000);

  it('hostile file names are sanitised and the bytes stay under the data folder', async () => {
    const created = await upload(svc, [
      { name: '../../../etc/pass\u0000wd\u202e.txt', data: Buffer.from('Name: B') },
      { name: '..', data: Buffer.from('x') },
    ]);
    const id = String(created.body.document_bundle_id);
    const bundle = await settled(svc, id);
    expect(bundle.documents.map((d) => d.name)).toEqual(['passwd.txt', 'document-2']);
    expect(dirEntries(join(svc.dataDir, 'documents', id)).sort()).toEqual(['0', '0.read.json', '1', '1.read.json']);
  }, 60_000);

  it('an encrypted PDF, a deeply nested PDF, PDF decompression bombs (content and image), a broken PDF, a zip-bomb DOCX, a lying zip-bomb XLSX, deeply nested JSON and an unknown binary fail their bundle with a clear error', async () => {
    const zeros = Buffer.alloc(300 * 1024 * 1024);
    const cases: [string, Buffer, RegExp][] = [
      ['secret.pdf', encryptedPdf(), /^secret\.pdf: the PDF is encrypted/],
      ['nested.pdf', nestedObjectsPdf(100_000), /^nested\.pdf: a broken PDF/],
      // 200 MB of blanks as the page's content, and a 64-megapixel image on a page OCR would render: refused before either is inflated.
      [
        'bomb.pdf',
        flateBombPdf('content', 200),
        /^bomb\.pdf: page 1's content inflates to more than 64 MB \(a decompression bomb\); refused$/,
      ],
      [
        'pixels.pdf',
        flateBombPdf('image', 64),
        /^pixels\.pdf: page 1 holds an image of 8192×8192 pixels \(67 megapixels\); images over 40 megapixels are refused$/,
      ],
      ['broken.pdf', Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R'), /^broken\.pdf: a broken PDF/],
      [
        'bomb.docx',
        buildRawZip([
          { name: 'word/document.xml', data: Buffer.from('<w:document/>'), declaredUncompressedSize: 0xfffffff0 },
        ]),
        /^bomb\.docx: .*zip bomb/,
      ],
      // Declares a tiny part that really inflates to 300 MB of zeros.
      [
        'liar.xlsx',
        buildRawZip([{ name: 'xl/workbook.xml', data: zeros, declaredUncompressedSize: 100 }]),
        /^liar\.xlsx: .*zip bomb/,
      ],
      [
        'deep.json',
        Buffer.from(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`),
        /^deep\.json: JSON nested deeper than 32 levels/,
      ],
      ['blob.bin', Buffer.from([0, 1, 2, 3, 0, 255]), /^blob\.bin: not a document Portico can read/],
    ];
    for (const [name, data, expected] of cases) {
      const created = await upload(svc, [
        { name: 'ok.txt', data: Buffer.from('Name: fine') },
        { name, data },
      ]);
      const id = String(created.body.document_bundle_id);
      const bundle = await settled(svc, id);
      expect(bundle.status, name).toBe('failed');
      expect(bundle.error, name).toMatch(expected);
      expect(bundle.documents[1]?.error, name).toMatch(expected);
      expect(bundle.documents[1]?.pages, name).toBeNull();
      // Nothing half-written: the readable document's result is not kept either.
      expect(dirEntries(join(svc.dataDir, 'documents', id)).sort(), name).toEqual(['0', '1']);
    }
  }, 120_000);

  it('a bundle over 200 pages fails', async () => {
    const many = await textPdf(Array.from({ length: 150 }, (_, i) => [`Page ${i + 1}`]));
    const created = await upload(svc, [
      { name: 'a.pdf', data: many },
      { name: 'b.pdf', data: many },
    ]);
    const bundle = await settled(svc, String(created.body.document_bundle_id));
    expect(bundle.status).toBe('failed');
    expect(bundle.documents[0]?.pages).toBe(150);
    expect(bundle.error).toMatch(/^b\.pdf: has 150 pages; a bundle reads at most 50 more pages/);
  }, 120_000);

  it('refuses bad uploads with {detail} and keeps nothing', async () => {
    const before = dirEntries(join(svc.dataDir, 'documents')).length;
    const tooMany = await upload(
      svc,
      Array.from({ length: 21 }, (_, i) => ({ name: `f${i}.txt`, data: Buffer.from('x') })),
    );
    expect(tooMany).toEqual({ status: 413, body: { detail: 'body.files: at most 20 files a bundle' } });
    const big = await upload(svc, [
      { name: 'small.txt', data: Buffer.from('x') },
      { name: 'big.txt', data: Buffer.alloc(50 * 1024 * 1024 + 1, 0x61) },
    ]);
    expect(big).toEqual({ status: 413, body: { detail: 'body.files: a file is larger than 50 MB' } });
    const none = await jsonOf(
      await svc.api('/documents/default', {
        method: 'POST',
        body: (() => {
          const f = new FormData();
          f.append('note', 'hi');
          return f;
        })(),
      }),
    );
    expect(none).toEqual({
      status: 422,
      body: { detail: "body.files: is required (one or more files in the multipart field 'files')" },
    });
    const json = await svc.send('uploadDocuments', { params: { org_id: 'default' }, body: { files: [] } });
    expect(json.status).toBe(422);
    expect(dirEntries(join(svc.dataDir, 'documents')).length).toBe(before);
    expect(dirEntries(join(svc.dataDir, 'tmp')).filter((e) => e.startsWith('documents-'))).toEqual([]);
    const db = new Database(join(svc.dataDir, 'portico.db'), { readonly: true });
    try {
      expect((db.prepare('SELECT COUNT(*) AS n FROM document_bundles').get() as { n: number }).n).toBe(before);
    } finally {
      db.close();
    }
  }, 120_000);

  it('a bundle a stopped service left processing is read after the restart', async () => {
    const created = await upload(svc, [{ name: 'letter.pdf', data: await textPdf([['Full name: Grace Hopper']]) }]);
    const id = String(created.body.document_bundle_id);
    await svc.stop();
    // Whatever the stop interrupted, put the bundle back where a crash mid-read leaves it.
    const db = new Database(join(svc.dataDir, 'portico.db'));
    db.prepare(`UPDATE document_bundles SET status = 'processing', error = NULL WHERE id = ?`).run(id);
    db.prepare(`UPDATE document_files SET pages = NULL, text_chars = NULL WHERE bundle_id = ?`).run(id);
    db.close();
    rmSync(join(svc.dataDir, 'documents', id, '0.read.json'), { force: true });
    const key = svc.orgKey;
    svc = await startService(svc.dataDir);
    const bundle = await settled(svc, id, key);
    expect(bundle.status).toBe('completed');
    expect(bundle.documents[0]?.pages).toBe(1);
    expect(readDocs(svc, id, 0).fields[0]).toMatchObject({ name: 'Full name', value: 'Grace Hopper' });
    expect(statSync(join(svc.dataDir, 'documents', id, '0')).isFile()).toBe(true);
  }, 120_000);
});
