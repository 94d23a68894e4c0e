// Document reading: extraction time per page for a text PDF (unpdf's text layer) and for OCR (a scanned-style
// PNG, and a scanned PDF whose pages are that PNG with no text layer: rendered at ~200 dpi, then OCR'd).
// The PNG is a real screenshot by Chromium of a form-like page; the PDFs are built with pdf-lib. The OCR worker
// is warmed once (its first job loads the core and the English data) and that warm-up is reported apart.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { chromium } from 'playwright-core';
import { extractText, getDocumentProxy } from 'unpdf';
import { readConfig } from '../src-main/base/config.ts';
import {
  chromiumArgs,
  findChromium,
  needsNoSandbox,
  systemChromiumHost,
} from '../src-main/browser/chromiumDiscovery.ts';
import { close, ocrPdfPages, ocrReader } from '../src-main/engine/documents/readers/ocr.ts';
import { WorkerReading } from '../src-main/engine/documents/workerReading.ts';
import { documentReaders } from '../src-main/engine/documents/readers/index.ts';
import { inProcessReading } from '../src-main/engine/documents/readStored.ts';

const TEXT_PAGES = Number(process.env.BENCH_DOC_TEXT_PAGES ?? 50);
const TEXT_RUNS = Number(process.env.BENCH_DOC_TEXT_RUNS ?? 10);
const OCR_RUNS = Number(process.env.BENCH_DOC_OCR_RUNS ?? 8);
const SCANNED_PAGES = Number(process.env.BENCH_DOC_SCANNED_PAGES ?? 4);

// Not from ./lib.ts: that module starts the whole app, and this bench needs only the readers.
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
const round = (v: number): number => Math.round(v * 10) / 10;

const FORM_HTML = `<!doctype html><html><body style="margin:0;background:#fff;font-family:'DejaVu Serif',serif;color:#111">
<div style="padding:48px 64px;width:1100px">
  <h1 style="font-size:34px;margin:0 0 24px">Application for a Residence Permit</h1>
  ${[
    ['Full name', 'Ada Lovelace'],
    ['Date of birth', '10/12/1815'],
    ['Place of birth', 'London'],
    ['Nationality', 'British'],
    ['Address', '12 St James Square, London'],
    ['Occupation', 'Mathematician'],
    ['Email', 'ada@example.org'],
    ['Phone', '+44 20 7946 0000'],
  ]
    .map(([label, value]) => `<p style="font-size:24px;margin:14px 0">${label}: ${value}</p>`)
    .join('')}
  <p style="font-size:20px;margin-top:28px;max-width:1000px">I declare that the information given in this application is true and complete to the best of my knowledge.</p>
</div></body></html>`;

async function formScreenshot(): Promise<Buffer> {
  const config = readConfig(process.env);
  const browser = await chromium.launch({
    executablePath: findChromium(systemChromiumHost(), { envPath: config.chromiumPath }),
    args: chromiumArgs({ noSandbox: needsNoSandbox(process.platform, config.chromiumNoSandbox, process.getuid?.()) }),
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1240, height: 760 } });
    await page.setContent(FORM_HTML);
    return await page.screenshot({ type: 'png' });
  } finally {
    await browser.close();
  }
}

async function textPdf(pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n += 1) {
    const page = pdf.addPage([612, 792]);
    page.drawText(`Page ${n}`, { x: 50, y: 740, size: 16, font });
    for (let line = 0; line < 40; line += 1) {
      page.drawText(`Line ${line + 1}: Full name: Ada Lovelace, Date of birth: 10/12/1815, reference ${n}-${line}`, {
        x: 50,
        y: 710 - line * 16,
        size: 10,
        font,
      });
    }
  }
  return pdf.save();
}

async function scannedPdf(png: Buffer, pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const image = await pdf.embedPng(png);
  for (let n = 0; n < pages; n += 1) {
    const page = pdf.addPage([612, 792]);
    const width = 540;
    const height = (image.height / image.width) * width;
    page.drawImage(image, { x: 36, y: 792 - 36 - height, width, height });
  }
  return pdf.save();
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-documents-'));
  try {
    // Text layer (unpdf): open + extract every page, per page.
    const textPath = join(dir, 'text.pdf');
    await writeFile(textPath, await textPdf(TEXT_PAGES));
    const textPerPage: number[] = [];
    let textChars = 0;
    for (let run = 0; run <= TEXT_RUNS; run += 1) {
      const t0 = performance.now();
      const pdf = await getDocumentProxy(new Uint8Array(await readFile(textPath)));
      const { totalPages, text } = await extractText(pdf, { mergePages: false });
      await pdf.loadingTask.destroy();
      const elapsed = performance.now() - t0;
      if (totalPages !== TEXT_PAGES || !text[TEXT_PAGES - 1]?.includes('Ada Lovelace'))
        throw new Error('the text layer was not read');
      textChars = text.reduce((sum, page) => sum + page.length, 0);
      if (run > 0) textPerPage.push(elapsed / TEXT_PAGES);
    }

    // OCR of a PNG scan (one page each).
    const png = await formScreenshot();
    const pngPath = join(dir, 'form.png');
    await writeFile(pngPath, png);
    const file = { path: pngPath, name: 'form.png', contentType: 'image/png', size: png.length };
    const w0 = performance.now();
    const first = await ocrReader.read(file, { maxPages: 200 });
    const warmUp = performance.now() - w0;
    if (!first.pageTexts[0]?.text.includes('Full name: Ada Lovelace'))
      throw new Error(`OCR misread the form: ${first.pageTexts[0]?.text}`);
    const pngPerPage: number[] = [];
    for (let run = 0; run < OCR_RUNS; run += 1) {
      const t0 = performance.now();
      await ocrReader.read(file, { maxPages: 200 });
      pngPerPage.push(performance.now() - t0);
    }

    // Scanned PDF: render each page at ~200 dpi, then OCR it.
    const scannedPath = join(dir, 'scanned.pdf');
    await writeFile(scannedPath, await scannedPdf(png, SCANNED_PAGES));
    const pageNumbers = Array.from({ length: SCANNED_PAGES }, (_, index) => index + 1);
    const scannedPerPage: number[] = [];
    for (let run = 0; run < Math.max(2, Math.ceil(OCR_RUNS / SCANNED_PAGES)); run += 1) {
      const t0 = performance.now();
      const pages = await ocrPdfPages(scannedPath, pageNumbers, { maxPages: 200 });
      scannedPerPage.push((performance.now() - t0) / SCANNED_PAGES);
      if (!pages.every((page) => page.text.includes('Ada Lovelace'))) throw new Error('OCR misread a scanned page');
    }

    // The service's path: each file read in the read worker thread (readers, bomb checks, OCR, page images),
    // while the main event loop's delay is sampled (what an HTTP request would wait).
    const reading = new WorkerReading();
    const workerText: number[] = [];
    const workerScanned: number[] = [];
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    try {
      const textFile = { path: textPath, name: 'text.pdf', contentType: 'application/pdf', size: 0 };
      await reading.read(textFile, { maxPages: 200 });
      loopDelay.enable();
      for (let run = 0; run < TEXT_RUNS; run += 1) {
        const t0 = performance.now();
        await reading.read(textFile, { maxPages: 200 });
        workerText.push((performance.now() - t0) / TEXT_PAGES);
      }
      for (let run = 0; run < 2; run += 1) {
        const t0 = performance.now();
        const read = await reading.read(
          { path: scannedPath, name: 'scanned.pdf', contentType: 'application/pdf', size: 0 },
          { maxPages: 200 },
        );
        workerScanned.push((performance.now() - t0) / SCANNED_PAGES);
        if (!read.pageTexts.every((page) => page.ocr && page.imageBytes))
          throw new Error('the worker did not OCR the scanned pages with their images');
      }
      loopDelay.disable();
    } finally {
      await reading.close();
    }
    // The same reads on the main thread (as before the worker), for contrast.
    const inProcess = inProcessReading(documentReaders());
    const inProcessDelay = monitorEventLoopDelay({ resolution: 5 });
    inProcessDelay.enable();
    for (let run = 0; run < 3; run += 1)
      await inProcess.read(
        { path: textPath, name: 'text.pdf', contentType: 'application/pdf', size: 0 },
        { maxPages: 200 },
      );
    await inProcess.read(
      { path: scannedPath, name: 'scanned.pdf', contentType: 'application/pdf', size: 0 },
      { maxPages: 200 },
    );
    inProcessDelay.disable();

    const result = {
      bench: 'documents',
      date: new Date().toISOString(),
      target: 'extraction time per page: text layer and OCR (reported, no hard target in the issue)',
      text_pdf_unpdf: {
        pages: TEXT_PAGES,
        runs: TEXT_RUNS,
        chars: textChars,
        ms_per_page_median: round(median(textPerPage)),
      },
      ocr_png: {
        image: '1240×760 Chromium screenshot of a form',
        runs: OCR_RUNS,
        ms_per_page_median: round(median(pngPerPage)),
        first_call_ms_including_worker_start: round(warmUp),
      },
      ocr_scanned_pdf: {
        pages: SCANNED_PAGES,
        render_dpi: 200,
        runs: scannedPerPage.length,
        ms_per_page_median: round(median(scannedPerPage)),
      },
      read_worker: {
        note: 'the service path: the read worker thread (text PDF incl. pdf-lib fields and bomb checks; scanned PDF incl. OCR and page images)',
        text_pdf_ms_per_page_median: round(median(workerText)),
        scanned_pdf_ms_per_page_median: round(median(workerScanned)),
        main_loop_delay_ms: { p99: round(loopDelay.percentile(99) / 1e6), max: round(loopDelay.max / 1e6) },
        in_process_main_loop_delay_ms: {
          p99: round(inProcessDelay.percentile(99) / 1e6),
          max: round(inProcessDelay.max / 1e6),
        },
      },
      machine: {
        cpus: cpus().length,
        platform: process.platform,
        node: process.version,
        loadavg: loadavg().map(round),
      },
    };
    await writeFile(join(import.meta.dirname, 'results', 'documents.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `${JSON.stringify({ text_ms_per_page: result.text_pdf_unpdf.ms_per_page_median, ocr_png_ms_per_page: result.ocr_png.ms_per_page_median, ocr_scanned_pdf_ms_per_page: result.ocr_scanned_pdf.ms_per_page_median, worker_main_loop_delay_max_ms: result.read_worker.main_loop_delay_ms.max })}\n`,
    );
  } finally {
    await close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
