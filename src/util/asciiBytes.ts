// Writing short ASCII texts and integers into a Buffer from JavaScript, for bytes made per
// request (the status call, src/inventory/statusWire.ts and plainRequest.ts). For texts of a
// few dozen characters a loop of indexed stores costs less than Buffer's write, which is a
// call into C++ per text (docs/performance.md, "Pre-encoded commands").

/**
 * Writes `text` into `into` at `at` byte by byte while it is ASCII, answering where it ended,
 * or -1 at its first other character (the caller writes it as UTF-8 then). For the short texts
 * of a call this loop costs less than Buffer's write, a call into C++ per text.
 */
export function putAscii(into: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return -1;
    into[at++] = code;
  }
  return at;
}

/** How many digits a non-negative safe integer has. */
export function digitCount(value: number): number {
  if (value >= 1e9) return 9 + digitCount(Math.floor(value / 1e9));
  let digits = 1;
  for (let rest = value | 0; rest >= 10; rest = (rest / 10) | 0) digits++;
  return digits;
}

/**
 * Writes a non-negative safe integer's digits; where it ended. In 32-bit steps: a double's
 * division and remainder cost several times an integer's (a time in ms has 13 digits).
 */
export function putDigits(into: Buffer, at: number, value: number): number {
  if (value >= 1e9) {
    const high = Math.floor(value / 1e9);
    at = putDigits(into, at, high);
    return putDigitsOf(into, at, value - high * 1e9, 9);
  }
  return putDigitsOf(into, at, value, digitCount(value));
}

/** Writes `value` (below 1e9) as exactly `digits` digits, zeros in front; where it ended. */
function putDigitsOf(into: Buffer, at: number, value: number, digits: number): number {
  let rest = value | 0;
  for (let i = at + digits - 1; i >= at; i--) {
    const tenth = (rest / 10) | 0;
    into[i] = 48 + rest - tenth * 10;
    rest = tenth;
  }
  return at + digits;
}

/** Whether putDigits writes `value`: a non-negative safe integer (other numbers go as their text). */
export const writesAsDigits = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;
