import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import { createGzip } from 'node:zlib';

const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** A POSIX ustar header for a regular file (names here are short ASCII: screenshot_NNNN.png). */
export function tarHeader(name: string, size: number, mtimeSeconds: number): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  const header = Buffer.alloc(BLOCK, 0);
  header.write(name, 0, 100, 'utf8');
  header.write(octal(0o644, 8), 100, 8, 'ascii');
  header.write(octal(0, 8), 108, 8, 'ascii');
  header.write(octal(0, 8), 116, 8, 'ascii');
  header.write(octal(size, 12), 124, 12, 'ascii');
  header.write(octal(Math.floor(mtimeSeconds), 12), 136, 12, 'ascii');
  header.write('        ', 148, 8, 'ascii');
  header.write('0', 156, 1, 'ascii');
  header.write('ustar\0', 257, 6, 'ascii');
  header.write('00', 263, 2, 'ascii');
  let checksum = 0;
  for (const byte of header) checksum += byte;
  header.write(`${checksum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return header;
}

/** Streams the files as a gzip-compressed tar; entries are named by `name`, read from `path`. */
export function tarGzStream(files: readonly { name: string; path: string }[]): Readable {
  const tar = new PassThrough();
  const gzip = createGzip();
  (async () => {
    for (const file of files) {
      const info = await stat(file.path);
      tar.write(tarHeader(file.name, info.size, info.mtimeMs / 1000));
      for await (const chunk of createReadStream(file.path)) {
        if (!tar.write(chunk)) await new Promise((resolve) => tar.once('drain', resolve));
      }
      const pad = (BLOCK - (info.size % BLOCK)) % BLOCK;
      if (pad) tar.write(Buffer.alloc(pad, 0));
    }
    tar.end(Buffer.alloc(BLOCK * 2, 0));
  })().catch((error: unknown) => tar.destroy(error instanceof Error ? error : new Error(String(error))));
  return tar.pipe(gzip);
}
