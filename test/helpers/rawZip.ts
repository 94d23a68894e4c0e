import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of a hand-built zip; every header field a real zipper would refuse to fake can be overridden. */
export interface RawZipEntry {
  name: string;
  data?: Buffer;
  /** 0 stored, 8 deflate (default), anything else is written as-is. */
  method?: number;
  /** Full 32-bit external attributes; unix mode goes in the high 16 bits. */
  externalAttributes?: number;
  flags?: number;
  declaredUncompressedSize?: number;
  declaredCompressedSize?: number;
  crc?: number;
  /** Point this central-directory entry at the local record of an earlier entry (overlapping-file bombs). */
  shareDataWith?: number;
}

/** Unix mode bits placed where zip tools store them. */
export function unixAttributes(mode: number): number {
  return ((mode & 0xffff) << 16) >>> 0;
}

/** Writes local headers, data and a central directory for `entries` without any sanity checks. */
export function buildRawZip(entries: readonly RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  const records: { offset: number; compressedSize: number; uncompressedSize: number; crc: number; method: number }[] =
    [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const flags = (entry.flags ?? 0) | 0x800;
    let record;
    if (entry.shareDataWith !== undefined) {
      const shared = records[entry.shareDataWith];
      if (shared === undefined) throw new Error(`shareDataWith ${entry.shareDataWith} is not an earlier entry`);
      record = shared;
    } else {
      const data = entry.data ?? Buffer.alloc(0);
      const method = entry.method ?? 8;
      const body = method === 8 ? deflateRawSync(data) : data;
      record = {
        offset,
        compressedSize: entry.declaredCompressedSize ?? body.length,
        uncompressedSize: entry.declaredUncompressedSize ?? data.length,
        crc: entry.crc ?? crc32(data),
        method,
      };
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(flags, 6);
      local.writeUInt16LE(method, 8);
      local.writeUInt32LE(record.crc >>> 0, 14);
      local.writeUInt32LE(record.compressedSize, 18);
      local.writeUInt32LE(record.uncompressedSize, 22);
      local.writeUInt16LE(name.length, 26);
      locals.push(local, name, body);
      offset += local.length + name.length + body.length;
    }
    records.push(record);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by unix, so the mode bits are meaningful
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(record.method, 10);
    central.writeUInt32LE(record.crc >>> 0, 16);
    central.writeUInt32LE(record.compressedSize, 20);
    central.writeUInt32LE(record.uncompressedSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(entry.externalAttributes ?? unixAttributes(0o100644), 38);
    central.writeUInt32LE(record.offset, 42);
    centrals.push(central, name);
  }
  const centralDirectory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralDirectory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralDirectory, end]);
}
