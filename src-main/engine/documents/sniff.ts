import { open } from 'node:fs/promises';
import { isJsonText } from './jsonPrefix.ts';
import { inspectZip } from './zipParts.ts';

export const HEAD_BYTES = 4096;

const startsWith = (head: Uint8Array, bytes: readonly number[]): boolean => bytes.every((b, i) => head[i] === b);
const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** How much of a file the JSON sniff reads: a valid JSON start of this length is JSON (the reader checks the rest, in its worker). */
export const JSON_SNIFF_BYTES = 64 * 1024;

/** The first `bytes` bytes of a stored file (fewer when it is shorter), and whether that is the whole file. */
export async function readPrefix(path: string, bytes: number): Promise<{ data: Uint8Array; whole: boolean }> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    const { size } = await handle.stat();
    return { data: buffer.subarray(0, bytesRead), whole: bytesRead >= size };
  } finally {
    await handle.close();
  }
}

/** The first bytes of a stored file. */
export async function readHead(path: string): Promise<Uint8Array> {
  return (await readPrefix(path, HEAD_BYTES)).data;
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
 * magic numbers, JSON by checking its first 64 KiB (the whole file when shorter; never a whole-file parse on the
 * service's thread: a 50 MB file once held it for seconds); other text is CSV when the client named it so, else plain text. The
 * client's type is only a hint between text flavours. Unknown binaries are `application/octet-stream`.
 * Throws `DocumentReadError` for a zip bomb or a broken zip.
 */
export async function sniffContentType(path: string, name: string, claimed: string): Promise<string> {
  const head = await readHead(path);
  // A PDF header may follow some junk within the first 1 KB (as readers allow).
  if (Buffer.from(head.subarray(0, 1024)).includes('%PDF-')) return 'application/pdf';
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) {
    const zip = await inspectZip(path, name);
    if (zip.names.has('word/document.xml'))
      return 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    if (zip.names.has('xl/workbook.xml')) return 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    return 'application/zip';
  }
  const image = imageType(head);
  if (image) return image;
  if (head.includes(0)) return 'application/octet-stream';
  const firstChar = Buffer.from(head)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()[0];
  if (firstChar === '{' || firstChar === '[') {
    const prefix = await readPrefix(path, JSON_SNIFF_BYTES);
    // Not JSON after all: read as text below.
    if (isJsonText(new TextDecoder().decode(prefix.data).replace(/^\uFEFF/, ''), prefix.whole))
      return 'application/json';
  }
  const lowerName = name.toLowerCase();
  const hint = claimed.toLowerCase();
  if (lowerName.endsWith('.tsv') || hint.startsWith('text/tab-separated-values')) return 'text/tab-separated-values';
  if (lowerName.endsWith('.csv') || hint.startsWith('text/csv') || hint.includes('comma-separated')) return 'text/csv';
  return 'text/plain';
}
