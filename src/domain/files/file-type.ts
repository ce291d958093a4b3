/** The content types a file may have (the contract's "Trip"), and the most it may weigh. */
export const FILE_CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'application/pdf'] as const;
export type FileContentType = (typeof FILE_CONTENT_TYPES)[number];
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

const ascii = (bytes: Uint8Array, from: number, text: string) => Buffer.from(bytes.subarray(from, from + text.length)).toString('latin1') === text;

/**
 * What the bytes are, read from their signature (never from the declared name or type):
 * JPEG's SOI marker, PNG's eight-byte signature, a RIFF container of WEBP, an ISO-BMFF `ftyp`
 * box of a HEIF brand, or a PDF header. Anything else is null.
 */
export function sniffContentType(bytes: Uint8Array): FileContentType | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 8 && Buffer.from(bytes.subarray(0, 8)).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 12 && ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP')) return 'image/webp';
  if (bytes.length >= 12 && ascii(bytes, 4, 'ftyp')) {
    const brand = Buffer.from(bytes.subarray(8, 12)).toString('latin1');
    if (['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1'].includes(brand)) return 'image/heic';
  }
  if (bytes.length >= 5 && ascii(bytes, 0, '%PDF-')) return 'application/pdf';
  return null;
}
