import { deflateSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import yazl from 'yazl';

/** A one-page PDF with a filled AcroForm text field per entry (its name drawn beside it), as a filled paper or government form is. */
export async function filledFormPdf(fields: Record<string, string>): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([595, 842]);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const form = pdf.getForm();
  let y = 780;
  for (const [name, value] of Object.entries(fields)) {
    page.drawText(name, { x: 40, y: y + 6, size: 11, font });
    const field = form.createTextField(name);
    field.setText(value);
    field.addToPage(page, { x: 220, y, width: 300, height: 22, font });
    y -= 40;
  }
  return Buffer.from(await pdf.save());
}

/** A text PDF: one page per entry of `pages`, each line drawn as text. */
export async function textPdf(pages: readonly string[][]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([595, 842]);
    for (const [i, line] of lines.entries()) page.drawText(line, { x: 50, y: 780 - i * 20, size: 12, font });
  }
  return Buffer.from(await doc.save());
}

/** A filled AcroForm PDF: text fields on pages 1 and 2, a checkbox, a radio group and a dropdown. */
export async function acroFormPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page1 = doc.addPage([595, 842]);
  const page2 = doc.addPage([595, 842]);
  const form = doc.getForm();
  const name = form.createTextField('applicant.full_name');
  name.addToPage(page1, { x: 50, y: 700, width: 200, height: 20 });
  name.setText('Ada Lovelace');
  const email = form.createTextField('email');
  email.addToPage(page2, { x: 50, y: 700, width: 200, height: 20 });
  email.setText('ada@example.org');
  const consent = form.createCheckBox('consent');
  consent.addToPage(page1, { x: 50, y: 650, width: 15, height: 15 });
  consent.check();
  const unticked = form.createCheckBox('newsletter');
  unticked.addToPage(page1, { x: 80, y: 650, width: 15, height: 15 });
  const plan = form.createRadioGroup('plan');
  plan.addOptionToPage('basic', page1, { x: 50, y: 600, width: 15, height: 15 });
  plan.addOptionToPage('premium', page1, { x: 80, y: 600, width: 15, height: 15 });
  plan.select('premium');
  const country = form.createDropdown('country');
  country.addOptions(['France', 'United Kingdom']);
  country.addToPage(page2, { x: 50, y: 600, width: 200, height: 20 });
  country.select('United Kingdom');
  form.createTextField('left_empty').addToPage(page2, { x: 50, y: 500, width: 200, height: 20 });
  return Buffer.from(await doc.save());
}

async function zipOf(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries))
    zip.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const xmlEscape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A minimal real DOCX (WordprocessingML), one paragraph per line. */
export function docx(paragraphs: readonly string[]): Promise<Buffer> {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${xmlEscape(p)}</w:t></w:r></w:p>`).join('');
  return zipOf({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  });
}

/** An XLSX made with exceljs: one sheet per entry, rows as given. */
export async function xlsx(sheets: Record<string, (string | number)[][]>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/**
 * A hand-made PDF whose trailer names a Standard security handler with a user password (its /U does not
 * match the empty password), so readers must refuse it as encrypted.
 */
export function encryptedPdf(): Buffer {
  const hex = (n: number, seed: number): string =>
    Array.from({ length: n }, (_, i) => ((i * 37 + seed) % 256).toString(16).padStart(2, '0')).join('');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>',
    `<< /Filter /Standard /V 1 /R 2 /O <${hex(32, 1)}> /U <${hex(32, 2)}> /P -4 >>`,
  ];
  return rawPdf(objects, `/Root 1 0 R /Encrypt 4 0 R /ID [<${hex(16, 3)}> <${hex(16, 3)}>]`);
}

/** A PDF whose catalog holds an array nested `depth` deep (a parser-stack bomb). */
export function nestedObjectsPdf(depth: number): Buffer {
  return rawPdf(
    [
      `<< /Type /Catalog /Pages 2 0 R /Bomb ${'['.repeat(depth)}${']'.repeat(depth)} >>`,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>',
    ],
    '/Root 1 0 R',
  );
}

/**
 * A PDF decompression bomb of `megabytes` that deflate to a few hundred kilobytes: as the page's content
 * stream (`content`: blanks, which pdf.js would parse as whitespace), or as an image of that many pixels the
 * page draws (`image`: a page without a text layer, so it would be rendered for OCR).
 */
export function flateBombPdf(kind: 'content' | 'image', megabytes: number): Buffer {
  const bytes = megabytes * 1024 * 1024;
  const data = deflateSync(Buffer.alloc(bytes, kind === 'content' ? 0x20 : 0), { level: 9 }).toString('latin1');
  const stream = (dict: string, body: string): string =>
    `<< ${dict} /Length ${Buffer.byteLength(body, 'latin1')} >>\nstream\n${body}\nendstream`;
  if (kind === 'content') {
    return rawPdf(
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>',
        stream('/Filter /FlateDecode', data),
      ],
      '/Root 1 0 R',
    );
  }
  const side = Math.floor(Math.sqrt(bytes));
  return rawPdf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /XObject << /Im1 5 0 R >> >> >>',
      stream('', 'q 595 0 0 842 0 0 cm /Im1 Do Q'),
      stream(
        `/Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode`,
        data,
      ),
    ],
    '/Root 1 0 R',
  );
}

/** Objects numbered from 1, a correct xref table and the given trailer entries. */
export function rawPdf(objects: readonly string[], trailer: string): Buffer {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} ${trailer} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** Multipart body of one or more `files`. */
export function filesForm(files: readonly { name: string; data: Buffer; type?: string }[], field = 'files'): FormData {
  const form = new FormData();
  for (const file of files)
    form.append(
      field,
      new Blob([new Uint8Array(file.data)], { type: file.type ?? 'application/octet-stream' }),
      file.name,
    );
  return form;
}
