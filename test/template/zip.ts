/**
 * A minimal ZIP reader (central directory + stored/deflated entries), enough to measure and read the Lambda
 * bundles serverless packs, with Node's own zlib and no dependency.
 */
import { inflateRawSync } from "node:zlib";

export interface ZipEntry {
  name: string;
  /** Uncompressed size in bytes. */
  size: number;
  compressedSize: number;
  method: number;
  localHeaderOffset: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

export function listZipEntries(zip: Buffer): ZipEntry[] {
  const end = findEndOfCentralDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== CENTRAL_FILE_HEADER)
      throw new Error(`bad central directory at ${offset}`);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const entry: ZipEntry = {
      method: zip.readUInt16LE(offset + 10),
      compressedSize: zip.readUInt32LE(offset + 20),
      size: zip.readUInt32LE(offset + 24),
      localHeaderOffset: zip.readUInt32LE(offset + 42),
      name: zip.toString("utf8", offset + 46, offset + 46 + nameLength),
    };
    if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff) {
      throw new Error(
        `${entry.name}: ZIP64 entries are not supported (a Lambda bundle should never need one)`,
      );
    }
    entries.push(entry);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

export function readZipEntry(zip: Buffer, entry: ZipEntry): Buffer {
  const offset = entry.localHeaderOffset;
  if (zip.readUInt32LE(offset) !== LOCAL_FILE_HEADER) throw new Error(`bad local header for ${entry.name}`);
  const start = offset + 30 + zip.readUInt16LE(offset + 26) + zip.readUInt16LE(offset + 28);
  const data = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === STORED) return Buffer.from(data);
  if (entry.method === DEFLATED) return inflateRawSync(data);
  throw new Error(`${entry.name}: unsupported compression method ${entry.method}`);
}

function findEndOfCentralDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65,535 bytes, at the very end of the file.
  const earliest = Math.max(0, zip.length - 22 - 0xffff);
  for (let offset = zip.length - 22; offset >= earliest; offset--) {
    if (zip.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  throw new Error("not a ZIP file (no end of central directory record)");
}
