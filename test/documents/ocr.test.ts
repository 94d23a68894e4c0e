// OCR of scanned-style documents: a real PNG of a form rendered by Chromium, the same PNG as the only content
// of a PDF page (no text layer), and hostile images (a decompression-bomb header, a broken file). tesseract.js
// reads its English data from the installed npm package; a child process checks that nothing reaches the network.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_IMAGE_PIXELS,
  checkImageSize,
  close,
  imageDimensions,
  ocrPdfPages,
  ocrReader,
  pdfRenderScale,
  sniffImage,
  tesseractWorkerOptions,
} from '../../src-main/engine/documents/readers/ocr.ts';
import { DocumentReadError } from '../../src-main/engine/documents/types.ts';
import { launchTestBrowser } from '../helpers/chromium.ts';

const FORM_HTML = `<!doctype html><html><body style="margin:0;background:#fff;font-family:'DejaVu Serif',serif;color:#111">
<div style="padding:48px 64px;width:820px">
  <h1 style="font-size:34px;margin:0 0 24px">Application for a Library Card</h1>
  <p style="font-size:26px;margin:14px 0">Full name: Ada Lovelace</p>
  <p style="font-size:26px;margin:14px 0">Date of birth: 10/12/1815</p>
  <p style="font-size:26px;margin:14px 0">City: London</p>
  <p style="font-size:26px;margin:14px 0">Occupation: Mathematician</p>
</div></body></html>`;

/** Label: value lines of OCR text, as the extractor reads them. */
const labelLines = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split('\n')
      .map((line) => /^([A-Za-z][A-Za-z ]+?)\s*:\s*(.+)$/.exec(line.trim()))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1] ?? '', (match[2] ?? '').trim()]),
  );

/** A PNG made only of a header: IHDR claims width × height; no pixel data follows. */
function pngHeader(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A baseline little-endian 8-bit greyscale TIFF (uncompressed strip) of the given pixels. */
function greyTiff(width: number, height: number, grey: Uint8Array): Buffer {
  const entries: [number, number, number][] = [
    [256, 3, width],
    [257, 3, height],
    [258, 3, 8],
    [259, 3, 1],
    [262, 3, 1],
    [273, 4, 0],
    [277, 3, 1],
    [278, 3, height],
    [279, 4, width * height],
  ];
  const dataOffset = 8 + 2 + entries.length * 12 + 4;
  const tiff = Buffer.alloc(dataOffset + width * height);
  tiff.write('II', 0, 'latin1');
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4);
  tiff.writeUInt16LE(entries.length, 8);
  entries.forEach(([tag, type, value], index) => {
    const at = 10 + index * 12;
    tiff.writeUInt16LE(tag, at);
    tiff.writeUInt16LE(type, at + 2);
    tiff.writeUInt32LE(1, at + 4);
    const stored = tag === 273 ? dataOffset : value;
    if (type === 3) tiff.writeUInt16LE(stored, at + 8);
    else tiff.writeUInt32LE(stored, at + 8);
  });
  tiff.set(grey, dataOffset);
  return tiff;
}

/** The PNG re-encoded as a JPEG. */
async function jpegOf(png: Buffer): Promise<Buffer> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  canvas.getContext('2d').drawImage(image, 0, 0);
  return canvas.encode('jpeg', 85);
}

let dir = '';
let formPng: Buffer = Buffer.alloc(0);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portico-ocr-'));
  const browser = await launchTestBrowser();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setViewportSize({ width: 950, height: 420 });
    await page.setContent(FORM_HTML);
    formPng = await page.screenshot({ type: 'png' });
  } finally {
    await browser.close();
  }
}, 60_000);

afterAll(async () => {
  await close();
  await rm(dir, { recursive: true, force: true });
});

describe('OCR of a scanned-style image', () => {
  it('reads the text of a form screenshot and its Label: value lines are recoverable', async () => {
    const path = join(dir, 'form.png');
    await writeFile(path, formPng);
    expect(ocrReader.accepts('image/png', formPng.subarray(0, 64), 'form.png')).toBe(true);
    const read = await ocrReader.read(
      { path, name: 'form.png', contentType: 'image/png', size: formPng.length },
      { maxPages: 200 },
    );
    expect(read).toMatchObject({
      name: 'form.png',
      contentType: 'image/png',
      size: formPng.length,
      pages: 1,
      fields: [],
    });
    expect(read.pageTexts).toHaveLength(1);
    const [page] = read.pageTexts;
    expect(page?.page).toBe(1);
    expect(page?.ocr).toBe(true);
    expect(page?.text).toContain('Application for a Library Card');
    const lines = labelLines(page?.text ?? '');
    expect(lines['Full name']).toBe('Ada Lovelace');
    expect(lines['Date of birth']).toBe('10/12/1815');
    expect(lines.City).toBe('London');
    expect(lines.Occupation).toBe('Mathematician');
  }, 120_000);

  it('reads JPEG, WebP and TIFF scans too, each typed by its bytes', async () => {
    const width = 640;
    const height = 100;
    const canvas = createCanvas(width, height);
    const context = canvas.getContext('2d');
    context.fillStyle = '#fff';
    context.fillRect(0, 0, width, height);
    context.fillStyle = '#000';
    context.font = '34px sans-serif';
    context.fillText('Full name: Ada Lovelace', 20, 62);
    const rgba = context.getImageData(0, 0, width, height).data;
    const grey = new Uint8Array(width * height).map((_, index) => rgba[index * 4] ?? 255);
    const files: [string, Buffer, string][] = [
      ['scan.jpg', await canvas.encode('jpeg', 92), 'image/jpeg'],
      ['scan.webp', await canvas.encode('webp', 92), 'image/webp'],
      ['scan.tif', greyTiff(width, height, grey), 'image/tiff'],
    ];
    for (const [name, bytes, contentType] of files) {
      const path = join(dir, name);
      await writeFile(path, bytes);
      expect(ocrReader.accepts('application/octet-stream', bytes.subarray(0, 64), name)).toBe(true);
      const read = await ocrReader.read(
        { path, name, contentType: 'application/octet-stream', size: bytes.length },
        { maxPages: 200 },
      );
      expect(read.contentType).toBe(contentType);
      expect(labelLines(read.pageTexts[0]?.text ?? '')['Full name']).toBe('Ada Lovelace');
    }
  }, 120_000);

  it('sniffs images by their bytes, not their name or declared type', () => {
    expect(ocrReader.accepts('application/octet-stream', formPng.subarray(0, 64), 'scan.bin')).toBe(true);
    expect(ocrReader.accepts('image/png', Buffer.from('%PDF-1.7\n'), 'fake.png')).toBe(false);
    expect(ocrReader.accepts('image/png', Buffer.from('Full name: Ada'), 'notes.png')).toBe(false);
  });

  it('reads the dimensions of real PNG, JPEG and WebP files from their headers', async () => {
    const canvas = createCanvas(321, 123);
    const context = canvas.getContext('2d');
    context.fillStyle = '#fff';
    context.fillRect(0, 0, 321, 123);
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const bytes = new Uint8Array(await canvas.encode(format as 'png'));
      expect(sniffImage(bytes)).toBe(format);
      expect(imageDimensions(bytes, format)).toEqual({ width: 321, height: 123 });
    }
  });
});

describe('OCR of a scanned PDF (an image is the page, no text layer)', () => {
  it('renders PNG and JPEG scan pages and reads their text, in the order asked, page numbers kept', async () => {
    const pdf = await PDFDocument.create();
    pdf.addPage([612, 792]); // a blank first page: only page 2 is asked for
    const page = pdf.addPage([612, 792]);
    const image = await pdf.embedPng(formPng);
    const width = 540;
    const height = (image.height / image.width) * width;
    page.drawImage(image, { x: 36, y: 792 - 36 - height, width, height });
    // Page 3: the same scan as a JPEG (DCTDecode), as most scanners store it.
    const jpegPage = pdf.addPage([612, 792]);
    const jpeg = await pdf.embedJpg(await jpegOf(formPng));
    jpegPage.drawImage(jpeg, { x: 36, y: 792 - 36 - height, width, height });
    const path = join(dir, 'scan.pdf');
    await writeFile(path, await pdf.save());

    const pages = await ocrPdfPages(path, [3, 2], { maxPages: 200 });
    expect(pages.map((page) => [page.page, page.ocr])).toEqual([
      [3, true],
      [2, true],
    ]);
    for (const page of pages) {
      const lines = labelLines(page.text);
      expect(lines['Full name']).toBe('Ada Lovelace');
      expect(lines['Date of birth']).toBe('10/12/1815');
    }
  }, 120_000);

  it('renders a Letter page at 200 dpi, and a huge page (200 × 200 inches) at most at 40 megapixels', () => {
    expect(pdfRenderScale(612, 792) * 72).toBeCloseTo(200, 5);
    const huge = pdfRenderScale(14_400, 14_400);
    expect(14_400 * huge * (14_400 * huge)).toBeLessThanOrEqual(MAX_IMAGE_PIXELS + 1);
    expect(huge * 72).toBeLessThan(200);
  });

  it('refuses a page the PDF does not have and more pages than the limit', async () => {
    const pdf = await PDFDocument.create();
    pdf.addPage([612, 792]);
    const path = join(dir, 'one-page.pdf');
    await writeFile(path, await pdf.save());
    await expect(ocrPdfPages(path, [3], { maxPages: 200 })).rejects.toThrow(DocumentReadError);
    await expect(ocrPdfPages(path, [1, 1, 1], { maxPages: 2 })).rejects.toThrow(/at most 2/);
  });

  it('refuses a file that is not a PDF with a clear error', async () => {
    const path = join(dir, 'broken.pdf');
    await writeFile(path, '%PDF-1.7\nthis is not a pdf at all');
    await expect(ocrPdfPages(path, [1], { maxPages: 200 })).rejects.toThrow(DocumentReadError);
  });
});

describe('hostile images', () => {
  it('refuses a decompression bomb from its header, before decoding', async () => {
    const bomb = pngHeader(100_000, 100_000); // 10 gigapixels claimed in a ~1 KB file
    expect(bomb.length).toBeLessThan(2048);
    const path = join(dir, 'bomb.png');
    await writeFile(path, bomb);
    const read = ocrReader.read(
      { path, name: 'bomb.png', contentType: 'image/png', size: bomb.length },
      { maxPages: 200 },
    );
    await expect(read).rejects.toThrow(DocumentReadError);
    await expect(read).rejects.toThrow(/megapixels are refused/);
    // Just over the limit is refused; at the limit is allowed.
    expect(() => checkImageSize(pngHeader(MAX_IMAGE_PIXELS / 4000 + 1, 4000), 'png')).toThrow(DocumentReadError);
    expect(checkImageSize(pngHeader(MAX_IMAGE_PIXELS / 4000, 4000), 'png')).toEqual({ width: 10_000, height: 4000 });
  });

  it('refuses JPEG and TIFF bombs from their headers too', async () => {
    // A JPEG whose start-of-frame says 65535×65535 (4.3 gigapixels), nothing after it.
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff, 0x01, 0x01,
      0x11, 0x00, 0xff, 0xd9,
    ]);
    const tiff = greyTiff(1, 1, new Uint8Array([255]));
    tiff.writeUInt16LE(60_000, 10 + 8); // width 60000
    tiff.writeUInt16LE(60_000, 22 + 8); // height 60000
    for (const [name, bytes] of [
      ['bomb.jpg', jpeg],
      ['bomb.tif', tiff],
    ] as const) {
      const path = join(dir, name);
      await writeFile(path, bytes);
      await expect(
        ocrReader.read({ path, name, contentType: 'image/jpeg', size: bytes.length }, { maxPages: 200 }),
      ).rejects.toThrow(/megapixels are refused/);
    }
  });

  it('refuses a truncated image with a clear error', async () => {
    const path = join(dir, 'truncated.png');
    const truncated = formPng.subarray(0, 20);
    await writeFile(path, truncated);
    await expect(
      ocrReader.read(
        { path, name: 'truncated.png', contentType: 'image/png', size: truncated.length },
        { maxPages: 200 },
      ),
    ).rejects.toThrow(/header could not be read/);
  });

  it('reports a corrupt image body as a read error, and the worker keeps working', async () => {
    const corrupt = Buffer.concat([formPng.subarray(0, 33), Buffer.alloc(4000, 0x41)]);
    const path = join(dir, 'corrupt.png');
    await writeFile(path, corrupt);
    await expect(
      ocrReader.read({ path, name: 'corrupt.png', contentType: 'image/png', size: corrupt.length }, { maxPages: 200 }),
    ).rejects.toThrow(DocumentReadError);
    const good = join(dir, 'again.png');
    await writeFile(good, formPng);
    const read = await ocrReader.read(
      { path: good, name: 'again.png', contentType: 'image/png', size: formPng.length },
      { maxPages: 200 },
    );
    expect(read.pageTexts[0]?.text).toContain('Ada Lovelace');
  }, 120_000);
});

describe('the shared worker', () => {
  it('is terminated by close() and made again by the next read', async () => {
    const path = join(dir, 'after-close.png');
    await writeFile(path, formPng);
    const file = { path, name: 'after-close.png', contentType: 'image/png', size: formPng.length };
    const before = await ocrReader.read(file, { maxPages: 200 });
    await close();
    await close(); // twice is harmless
    const after = await ocrReader.read(file, { maxPages: 200 });
    expect(after.pageTexts).toEqual(before.pageTexts);
  }, 120_000);

  it('stops before recognizing when the read is aborted', async () => {
    const path = join(dir, 'aborted.png');
    await writeFile(path, formPng);
    const controller = new AbortController();
    controller.abort(new Error('bundle deleted'));
    await expect(
      ocrReader.read(
        { path, name: 'aborted.png', contentType: 'image/png', size: formPng.length },
        { maxPages: 200, signal: controller.signal },
      ),
    ).rejects.toThrow('bundle deleted');
  });
});

describe('no download at run time', () => {
  it('points tesseract at the installed English data, with the cache off', () => {
    const options = tesseractWorkerOptions();
    expect(options.cacheMethod).toBe('none');
    expect(options.langPath).toMatch(/node_modules[\\/]@tesseract\.js-data[\\/]eng[\\/]4\.0\.0_best_int$/);
    expect(existsSync(join(options.langPath, 'eng.traineddata.gz'))).toBe(true);
  });

  it('reads an image with every network call refused, in a process of its own', async () => {
    const path = join(dir, 'offline.png');
    await writeFile(path, formPng);
    const networkLog = join(dir, 'network.log');
    const loadedLog = join(dir, 'guard-loaded.log');
    const guard = join(dir, 'no-network.cjs');
    // Preloaded with --require into the process and every worker thread (tesseract recognizes in one): any
    // connection, DNS lookup or fetch is recorded and fails. Each thread notes that the guard is in place.
    await writeFile(
      guard,
      `const net = require('node:net'); const dns = require('node:dns'); const { appendFileSync } = require('node:fs');
const { isMainThread } = require('node:worker_threads');
appendFileSync(${JSON.stringify(loadedLog)}, (isMainThread ? 'main' : 'worker') + '\\n');
const log = (what) => appendFileSync(${JSON.stringify(networkLog)}, what + '\\n');
const refuse = (what) => function () { log(what); throw new Error('network refused in test: ' + what); };
net.Socket.prototype.connect = refuse('net.connect');
dns.lookup = refuse('dns.lookup');
dns.promises.lookup = refuse('dns.promises.lookup');
globalThis.fetch = async (url) => { log('fetch ' + String(url)); throw new Error('network refused in test'); };
`,
    );
    const script = join(dir, 'offline-read.mjs');
    await writeFile(
      script,
      `import { ocrReader, close } from ${JSON.stringify(resolve('src-main/engine/documents/readers/ocr.ts'))};
const read = await ocrReader.read({ path: ${JSON.stringify(path)}, name: 'offline.png', contentType: 'image/png', size: 1 }, { maxPages: 1 });
process.stdout.write(JSON.stringify(read.pageTexts));
await close();
`,
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HTTP_PROXY: '',
      HTTPS_PROXY: '',
      http_proxy: '',
      https_proxy: '',
      NO_PROXY: '*',
      NODE_OPTIONS: '',
    };
    const child = spawnSync(process.execPath, ['--require', guard, script], {
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(child.stderr).not.toMatch(/network refused/);
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(existsSync(networkLog)).toBe(false);
    // The guard was active in the main thread and in tesseract's worker thread.
    expect((await readFile(loadedLog, 'utf8')).split('\n')).toEqual(expect.arrayContaining(['main', 'worker']));
    const pages = JSON.parse(child.stdout) as { text: string; ocr: boolean }[];
    expect(pages[0]?.ocr).toBe(true);
    expect(labelLines(pages[0]?.text ?? '')['Full name']).toBe('Ada Lovelace');
  }, 120_000);
});
