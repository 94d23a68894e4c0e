/**
 * OCR: images (PNG, JPEG, WebP, TIFF) and the pages of a scanned PDF whose text layer is empty, read by
 * tesseract.js with the English data installed from npm (`@tesseract.js-data/eng`). Nothing is downloaded at
 * run time: `langPath` is the installed package's folder, the core comes from `tesseract.js-core`, the cache
 * is off (`cacheMethod: 'none'`), and images are handed over as bytes, never as URLs.
 *
 * One tesseract worker (a worker thread, so recognition runs off the request path) is created on first use,
 * reused by every page, and terminated by `close()` when the service stops. Jobs are queued one at a time.
 *
 * Hostile input: an image's dimensions are read from its header before anything decodes it, and an image
 * over 40 megapixels (a decompression bomb) is refused; a PDF page is rendered at ~200 dpi but never to
 * more than 40 megapixels.
 */
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Worker as TesseractWorker } from 'tesseract.js';
import {
  type DocumentPage,
  type DocumentReader,
  DocumentReadError,
  MODEL_IMAGE_MAX_PIXELS,
  MODEL_IMAGE_MAX_SIDE,
  MODEL_MAX_PAGE_IMAGES,
  type ReadDocument,
} from '../types.ts';

/** The most pixels an image (or a rendered PDF page) may have: above it, decoding could exhaust memory. */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** The resolution PDF pages are rendered at for OCR (PDF user space is 72 units an inch). */
export const PDF_RENDER_DPI = 200;

export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'tiff';

const contentTypes: Record<ImageFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  tiff: 'image/tiff',
};

/** The image format the first bytes announce, or null. */
export function sniffImage(head: Uint8Array): ImageFormat | null {
  const at = (offset: number, bytes: number[]) => bytes.every((byte, index) => head[offset + index] === byte);
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (at(0, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (at(0, [0x52, 0x49, 0x46, 0x46]) && at(8, [0x57, 0x45, 0x42, 0x50])) return 'webp';
  if (at(0, [0x49, 0x49, 0x2a, 0x00]) || at(0, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  return null;
}

/** Width and height from the image's header, without decoding it; throws `DocumentReadError` when the header is broken. */
export function imageDimensions(bytes: Uint8Array, format: ImageFormat): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const broken = () =>
    new DocumentReadError(`The ${format.toUpperCase()} image is broken: its header could not be read.`);
  const need = (end: number) => {
    if (end > bytes.byteLength) throw broken();
  };
  switch (format) {
    case 'png': {
      need(24);
      // IHDR is always the first chunk: length(4) "IHDR"(4) width(4) height(4).
      if (view.getUint32(12) !== 0x49484452) throw broken();
      return { width: view.getUint32(16), height: view.getUint32(20) };
    }
    case 'jpeg': {
      let offset = 2;
      while (offset + 4 <= bytes.byteLength) {
        if (bytes[offset] !== 0xff) throw broken();
        const marker = bytes[offset + 1] ?? 0;
        if (marker === 0xff) {
          offset += 1;
          continue;
        }
        if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
          offset += 2;
          continue;
        }
        const length = view.getUint16(offset + 2);
        // Start-of-frame markers (C0–CF except DHT C4, JPG C8, DAC CC): precision(1) height(2) width(2).
        if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
          need(offset + 9);
          return { width: view.getUint16(offset + 7), height: view.getUint16(offset + 5) };
        }
        if (marker === 0xd9 || marker === 0xda || length < 2) break;
        offset += 2 + length;
      }
      throw broken();
    }
    case 'webp': {
      need(30);
      const chunk = String.fromCharCode(...bytes.subarray(12, 16));
      if (chunk === 'VP8X') {
        const width = 1 + (view.getUint16(24, true) | ((bytes[26] ?? 0) << 16));
        const height = 1 + (view.getUint16(27, true) | ((bytes[29] ?? 0) << 16));
        return { width, height };
      }
      if (chunk === 'VP8L') {
        if (bytes[20] !== 0x2f) throw broken();
        const bits = view.getUint32(21, true);
        return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
      }
      if (chunk === 'VP8 ') {
        if (!(bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a)) throw broken();
        return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
      }
      throw broken();
    }
    case 'tiff': {
      need(8);
      const little = bytes[0] === 0x49;
      const ifd = view.getUint32(4, little);
      need(ifd + 2);
      const entries = view.getUint16(ifd, little);
      need(ifd + 2 + entries * 12);
      let width = 0;
      let height = 0;
      for (let index = 0; index < entries; index += 1) {
        const entry = ifd + 2 + index * 12;
        const tag = view.getUint16(entry, little);
        const type = view.getUint16(entry + 2, little);
        const value = type === 3 ? view.getUint16(entry + 8, little) : view.getUint32(entry + 8, little);
        if (tag === 256) width = value;
        if (tag === 257) height = value;
      }
      if (width === 0 || height === 0) throw broken();
      return { width, height };
    }
  }
}

/** Refuses an image whose header says it is empty or larger than `MAX_IMAGE_PIXELS`. */
export function checkImageSize(bytes: Uint8Array, format: ImageFormat): { width: number; height: number } {
  const size = imageDimensions(bytes, format);
  if (size.width === 0 || size.height === 0) {
    throw new DocumentReadError(`The ${format.toUpperCase()} image is broken: it has no pixels.`);
  }
  if (size.width * size.height > MAX_IMAGE_PIXELS) {
    throw new DocumentReadError(
      `The image is ${size.width}×${size.height} pixels (${Math.round((size.width * size.height) / 1e6)} megapixels); images over ${MAX_IMAGE_PIXELS / 1e6} megapixels are refused.`,
    );
  }
  return size;
}

// --- the tesseract worker -------------------------------------------------------------------------------

const requireHere = createRequire(import.meta.url);

/** The folder of the installed English data (LSTM, integer "best" model, matching tesseract.js's default OEM). */
export function tesseractLangPath(): string {
  return join(dirname(requireHere.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

/**
 * The options the worker is created with: everything local. `langPath` is a folder (tesseract.js reads a
 * folder with fs and fetches only URLs), the cache is neither read nor written.
 */
export function tesseractWorkerOptions(): {
  langPath: string;
  cacheMethod: 'none';
  gzip: true;
  logger: () => void;
  errorHandler: () => void;
} {
  // Without an errorHandler tesseract.js rethrows a failed job (a corrupt image) as an uncaught exception,
  // besides rejecting its promise; the rejection is what `recognize` turns into a DocumentReadError.
  return { langPath: tesseractLangPath(), cacheMethod: 'none', gzip: true, logger: () => {}, errorHandler: () => {} };
}

let worker: Promise<TesseractWorker> | null = null;
let queue: Promise<unknown> = Promise.resolve();

function getWorker(): Promise<TesseractWorker> {
  if (!worker) {
    const created = import('tesseract.js').then(async (module) => {
      const tesseract = (module as { default?: typeof import('tesseract.js') }).default ?? module;
      return tesseract.createWorker('eng', tesseract.OEM.LSTM_ONLY, tesseractWorkerOptions());
    });
    worker = created;
    created.catch(() => {
      if (worker === created) worker = null;
    });
  }
  return worker;
}

/** Recognizes one image (PNG/JPEG/WebP/TIFF bytes); jobs run one at a time on the shared worker. */
async function recognize(image: Uint8Array, signal?: AbortSignal): Promise<string> {
  const run = queue.then(async () => {
    signal?.throwIfAborted();
    const tesseract = await getWorker();
    try {
      const result = await tesseract.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
      return normalize(result.data.text);
    } catch (error) {
      if (error instanceof DocumentReadError) throw error;
      throw new DocumentReadError(
        `The image could not be read by OCR: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  });
  queue = run.catch(() => undefined);
  return run;
}

function normalize(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Terminates the shared worker (the service is stopping); the next OCR creates a new one. */
export async function close(): Promise<void> {
  const current = worker;
  worker = null;
  if (!current) return;
  await queue;
  const instance = await current.catch(() => null);
  await instance?.terminate();
}

// --- page images for the model --------------------------------------------------------------------------

/** The scale that brings a `width` × `height` image within MODEL_IMAGE_MAX_SIDE and MODEL_IMAGE_MAX_PIXELS (never up). */
export function modelImageScale(width: number, height: number): number {
  return Math.min(
    1,
    MODEL_IMAGE_MAX_SIDE / Math.max(width, height),
    Math.sqrt(MODEL_IMAGE_MAX_PIXELS / (width * height)),
  );
}

/**
 * The page as the model sees it: a JPEG within the model image caps, or undefined when the image cannot be
 * decoded here (the OCR text still goes to the model).
 */
export async function modelImage(image: Uint8Array): Promise<Uint8Array | undefined> {
  try {
    const { createCanvas, loadImage } = await import('@napi-rs/canvas');
    const decoded = await loadImage(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
    if (!(decoded.width > 0 && decoded.height > 0)) return undefined;
    const scale = modelImageScale(decoded.width, decoded.height);
    const width = Math.max(1, Math.floor(decoded.width * scale));
    const height = Math.max(1, Math.floor(decoded.height * scale));
    const canvas = createCanvas(width, height);
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    context.drawImage(decoded, 0, 0, width, height);
    return new Uint8Array(await canvas.encode('jpeg', 80));
  } catch {
    return undefined;
  }
}

// --- images ---------------------------------------------------------------------------------------------

export const ocrReader: DocumentReader = {
  accepts(_contentType, head) {
    return sniffImage(head) !== null;
  },
  async read(file, limits): Promise<ReadDocument> {
    limits.signal?.throwIfAborted();
    const bytes = new Uint8Array(await readFile(file.path));
    const format = sniffImage(bytes);
    if (!format) throw new DocumentReadError(`${file.name} is not a PNG, JPEG, WebP or TIFF image.`);
    checkImageSize(bytes, format);
    const text = await recognize(bytes, limits.signal);
    const imageBytes = await modelImage(bytes);
    return {
      name: file.name,
      contentType: contentTypes[format],
      size: file.size,
      pages: 1,
      pageTexts: [{ page: 1, text, ocr: true, ...(imageBytes && { imageBytes }) }],
      fields: [],
    };
  },
};

// --- scanned PDF pages ----------------------------------------------------------------------------------

/**
 * The scale a PDF page of `width` × `height` points is rendered at: ~200 dpi, but never more than
 * MAX_IMAGE_PIXELS (a page declared metres wide, legal in PDF, is rendered at a lower resolution instead).
 */
export function pdfRenderScale(width: number, height: number): number {
  return Math.min(PDF_RENDER_DPI / 72, Math.sqrt(MAX_IMAGE_PIXELS / (width * height)));
}

/**
 * OCRs the given 1-based pages of the PDF at `path` (those whose text layer is empty): each is rendered to a
 * PNG at ~200 dpi with unpdf's pdf.js and @napi-rs/canvas, then recognized. Pages come back in the order asked.
 */
export async function ocrPdfPages(
  path: string,
  pageNumbers: number[],
  limits: { maxPages: number; signal?: AbortSignal },
): Promise<DocumentPage[]> {
  if (pageNumbers.length === 0) return [];
  if (pageNumbers.length > limits.maxPages) {
    throw new DocumentReadError(
      `The PDF has ${pageNumbers.length} pages to read by OCR; at most ${limits.maxPages} are read.`,
    );
  }
  limits.signal?.throwIfAborted();
  await stat(path);
  const data = new Uint8Array(await readFile(path));
  const unpdf = await import('unpdf');
  const canvasImport = () => import('@napi-rs/canvas');
  const CanvasFactory = await unpdf.createIsomorphicCanvasFactory(canvasImport);
  let pdf: Awaited<ReturnType<typeof unpdf.getDocumentProxy>>;
  try {
    // maxImageSize: pdf.js skips (never decodes) an image over the cap, whatever the page declares.
    pdf = await unpdf.getDocumentProxy(data, { CanvasFactory, maxImageSize: MAX_IMAGE_PIXELS });
  } catch (error) {
    throw new DocumentReadError(
      `The PDF could not be opened: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    const pages: DocumentPage[] = [];
    for (const pageNumber of pageNumbers) {
      limits.signal?.throwIfAborted();
      if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > pdf.numPages) {
        throw new DocumentReadError(`The PDF has no page ${pageNumber} (it has ${pdf.numPages}).`);
      }
      const page = await pdf.getPage(pageNumber);
      const { width, height } = page.getViewport({ scale: 1 });
      if (!(width > 0 && height > 0)) throw new DocumentReadError(`Page ${pageNumber} of the PDF has no size.`);
      const scale = pdfRenderScale(width, height);
      let png: ArrayBuffer;
      try {
        png = await unpdf.renderPageAsImage(pdf, pageNumber, { canvasImport, scale });
      } catch (error) {
        throw new DocumentReadError(
          `Page ${pageNumber} of the PDF could not be rendered: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      const text = await recognize(new Uint8Array(png), limits.signal);
      const imageBytes = pages.length < MODEL_MAX_PAGE_IMAGES ? await modelImage(new Uint8Array(png)) : undefined;
      pages.push({ page: pageNumber, text, ocr: true, ...(imageBytes && { imageBytes }) });
    }
    return pages;
  } finally {
    await pdf.loadingTask.destroy();
  }
}
