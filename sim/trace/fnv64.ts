// FNV-1a, 64-bit, in pure TypeScript: the trace hash (ARCHITECTURE.md, "Trace"). No crypto and no bigint
// on the hot path: the 64-bit state is four 16-bit limbs held in numbers, so every step is exact integer
// arithmetic well inside 2^53. The prime 2^40 + 0x1b3 is applied as `h * 0x1b3 + (h << 40)`.

const PRIME_LOW = 0x1b3;
/** Scratch space for the digits of a safe integer (at most 16). */
const DIGITS = new Uint8Array(16);

/** An incremental FNV-1a 64 hash over bytes; strings are fed as their UTF-8 encoding. */
export class Fnv1a64 {
  // Limbs of the 64-bit state, least significant first; initialised to the offset basis cbf29ce484222325.
  private h0 = 0x2325;
  private h1 = 0x8422;
  private h2 = 0x9ce4;
  private h3 = 0xcbf2;

  /** Feeds one byte (0..255). */
  updateByte(byte: number): void {
    const h0 = this.h0 ^ (byte & 0xff);
    const t0 = h0 * PRIME_LOW;
    let t1 = this.h1 * PRIME_LOW;
    let t2 = this.h2 * PRIME_LOW + (h0 << 8);
    const t3 = this.h3 * PRIME_LOW + (this.h1 << 8);
    t1 += t0 >>> 16;
    t2 += t1 >>> 16;
    this.h0 = t0 & 0xffff;
    this.h1 = t1 & 0xffff;
    this.h2 = t2 & 0xffff;
    this.h3 = (t3 + (t2 >>> 16)) & 0xffff;
  }

  /**
   * Feeds the UTF-8 bytes of `text` (lone surrogates are encoded as U+FFFD, as TextEncoder does). The
   * ASCII bytes that make up nearly all trace text take an inlined path on local limbs.
   */
  updateString(text: string): void {
    let h0 = this.h0;
    let h1 = this.h1;
    let h2 = this.h2;
    let h3 = this.h3;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code >= 0x80) {
        this.h0 = h0;
        this.h1 = h1;
        this.h2 = h2;
        this.h3 = h3;
        this.updateFrom(text, i);
        return;
      }
      // updateByte(code), inlined.
      const x0 = h0 ^ code;
      const t0 = x0 * PRIME_LOW;
      let t1 = h1 * PRIME_LOW;
      let t2 = h2 * PRIME_LOW + (x0 << 8);
      const t3 = h3 * PRIME_LOW + (h1 << 8);
      t1 += t0 >>> 16;
      t2 += t1 >>> 16;
      h0 = t0 & 0xffff;
      h1 = t1 & 0xffff;
      h2 = t2 & 0xffff;
      h3 = (t3 + (t2 >>> 16)) & 0xffff;
    }
    this.h0 = h0;
    this.h1 = h1;
    this.h2 = h2;
    this.h3 = h3;
  }

  /** A TextSink: canonical text can be written straight into the hash. */
  push(text: string): void {
    this.updateString(text);
  }

  /**
   * Feeds `String(value)`'s bytes. A non-negative safe integer (indexes, ids, most times) is fed digit
   * by digit without building the string; anything else goes through String().
   */
  pushNumber(value: number): void {
    if (value >= 0 && value <= Number.MAX_SAFE_INTEGER && Math.floor(value) === value) this.updateUint(value);
    else this.updateString(String(value));
  }

  /** Feeds the decimal digits of a non-negative safe integer (-0 as "0"), as String() spells them. */
  updateUint(value: number): void {
    if (value < 10) {
      this.updateByte(0x30 + value);
      return;
    }
    const digits = DIGITS;
    let count = 0;
    // n % 10 and (n - d) / 10 are exact for integers below 2^53.
    for (let n = value; n > 0; n = (n - (n % 10)) / 10) digits[count++] = 0x30 + (n % 10);
    while (count > 0) this.updateByte(digits[--count]!);
  }

  /** The general UTF-8 path, from code unit `start` on. */
  private updateFrom(text: string, start: number): void {
    for (let i = start; i < text.length; i++) {
      let code = text.charCodeAt(i);
      if (code < 0x80) {
        this.updateByte(code);
        continue;
      }
      if (code < 0x800) {
        this.updateByte(0xc0 | (code >> 6));
        this.updateByte(0x80 | (code & 0x3f));
        continue;
      }
      if (code >= 0xd800 && code <= 0xdfff) {
        const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
        if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
          i++;
          this.updateByte(0xf0 | (code >> 18));
          this.updateByte(0x80 | ((code >> 12) & 0x3f));
          this.updateByte(0x80 | ((code >> 6) & 0x3f));
          this.updateByte(0x80 | (code & 0x3f));
          continue;
        }
        code = 0xfffd;
      }
      this.updateByte(0xe0 | (code >> 12));
      this.updateByte(0x80 | ((code >> 6) & 0x3f));
      this.updateByte(0x80 | (code & 0x3f));
    }
  }

  /** The current 64-bit digest as 16 lowercase hex digits. */
  hex(): string {
    return hex16(this.h3) + hex16(this.h2) + hex16(this.h1) + hex16(this.h0);
  }

  /** The current digest as an unsigned 64-bit bigint. */
  value(): bigint {
    return BigInt('0x' + this.hex());
  }
}

function hex16(limb: number): string {
  return limb.toString(16).padStart(4, '0');
}

/** FNV-1a 64 of a string's UTF-8 bytes, as 16 hex digits. */
export function fnv1a64Hex(text: string): string {
  const hash = new Fnv1a64();
  hash.updateString(text);
  return hash.hex();
}
