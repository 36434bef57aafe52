// The CRC-32 of two byte strings joined, from the CRC-32 of each and the length of the second
// (zlib's crc32_combine, which Node does not expose): the parts of a gzip body compressed
// apart (src/util/gzipStream.ts) keep their own CRCs, and the trailer needs the whole one.
// Appending `length` zero bytes to the first CRC is a linear map over GF(2); it is applied
// by squaring the one-zero-bit operator, once per bit of the length.

/** The 32x32 bit matrix `mat` times the bit vector `vec`. */
function times(mat: Uint32Array, vec: number): number {
  let sum = 0;
  for (let i = 0; vec !== 0; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i]!;
  return sum >>> 0;
}

/** `square` = `mat` times itself. */
function squareOf(square: Uint32Array, mat: Uint32Array): void {
  for (let n = 0; n < 32; n++) square[n] = times(mat, mat[n]!);
}

export function crc32Combine(crc1: number, crc2: number, length2: number): number {
  // The second string is empty: its CRC is 0 and the first stands.
  if (length2 <= 0) return crc1 >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  // The operator for one zero bit: the CRC-32 polynomial (reflected), then a shift.
  odd[0] = 0xedb88320;
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row;
  squareOf(even, odd); // two zero bits
  squareOf(odd, even); // four zero bits
  let crc = crc1 >>> 0;
  let length = length2;
  // Apply length2 zero bytes: the first square below is one byte (eight bits).
  do {
    squareOf(even, odd);
    if (length % 2 === 1) crc = times(even, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
    squareOf(odd, even);
    if (length % 2 === 1) crc = times(odd, crc);
    length = Math.floor(length / 2);
  } while (length !== 0);
  return (crc ^ crc2) >>> 0;
}
