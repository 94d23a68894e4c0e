import { open, readFile } from 'node:fs/promises';
import { inspectZip } from './zipParts.ts';

export const HEAD_BYTES = 4096;

const startsWith = (head: Uint8Array, bytes: readonly number[]): boolean => bytes.every((b, i) => head[i] === b);
const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** The first bytes of a stored file. */
export async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Image types by magic number (read by OCR). */
function imageType(head: Uint8Array): string | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) return 'image/tiff';
  if (startsWith(head, ascii('RIFF')) && startsWith(head.subarray(8), ascii('WEBP'))) return 'image/webp';
  if (startsWith(head, ascii('BM'))) return 'image/bmp';
  return undefined;
}

/**
 * The content type of a stored file from its bytes: PDF by `%PDF-`, DOCX/XLSX by their zip parts, images by
 * magic numbers, JSON by parsing; other text is CSV when the client named it so, else plain text. The
 * client's type is only a hint between text flavours. Unknown binaries are `application/octet-stream`.
 * Throws `DocumentReadError` for a zip bomb or a broken zip.
 */
export async function sniffContentType(path: string, name: string, claimed: string): Promise<string> {
  const head = await readHead(path);
  // A PDF header may follow some junk within the first 1 KB (as readers allow).
  if (Buffer.from(head.subarray(0, 1024)).includes('%PDF-')) return 'application/pdf';
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) {
    const zip = await inspectZip(path, name);
    if (zip.names.has('word/document.xml')) return 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    if (zip.names.has('xl/workbook.xml')) return 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    return 'application/zip';
  }
  const image = imageType(head);
  if (image) return image;
  if (head.includes(0)) return 'application/octet-stream';
  const firstChar = Buffer.from(head).toString('utf8').replace(/^\uFEFF/, '').trimStart()[0];
  if (firstChar === '{' || firstChar === '[') {
    try {
      JSON.parse((await readFile(path, 'utf8')).replace(/^\uFEFF/, ''));
      return 'application/json';
    } catch {
      // Not JSON after all: read as text below.
    }
  }
  const lowerName = name.toLowerCase();
  const hint = claimed.toLowerCase();
  if (lowerName.endsWith('.tsv') || hint.startsWith('text/tab-separated-values')) return 'text/tab-separated-values';
  if (lowerName.endsWith('.csv') || hint.startsWith('text/csv') || hint.includes('comma-separated')) return 'text/csv';
  return 'text/plain';
}
