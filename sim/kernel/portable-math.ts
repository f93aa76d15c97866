// ln and exp that give the same bits on every JavaScript engine. ECMAScript leaves Math.log, Math.exp
// and friends "implementation-approximated", and engines do change them: a run drawn in Chromium's
// worker sampled one lognormal fsync time a bit apart from Node 20's, so the same seed gave another
// trace hash in the browser workbench. These are fdlibm's algorithms (e_log.c, e_exp.c, Sun
// Microsystems 1993, as in FreeBSD's msun), which use only IEEE-754 +, -, *, / (correctly rounded
// everywhere, never fused in JavaScript) and bit operations on the double, so the result is a pure
// function of the input. Error below one ulp, like the engines' own.
const scratch = new DataView(new ArrayBuffer(8));

function highWord(x: number): number {
  scratch.setFloat64(0, x);
  return scratch.getInt32(0);
}

function lowWord(x: number): number {
  scratch.setFloat64(0, x);
  return scratch.getUint32(4);
}

function withHighWord(x: number, high: number): number {
  scratch.setFloat64(0, x);
  scratch.setInt32(0, high);
  return scratch.getFloat64(0);
}

const LN2_HI = 6.93147180369123816490e-1; // 0x3fe62e42 fee00000
const LN2_LO = 1.90821492927058770002e-10; // 0x3dea39ef 35793c76
const TWO54 = 1.80143985094819840000e16;
const LG1 = 6.666666666666735130e-1;
const LG2 = 3.999999999940941908e-1;
const LG3 = 2.857142874366239149e-1;
const LG4 = 2.222219843214978396e-1;
const LG5 = 1.818357216161805012e-1;
const LG6 = 1.531383769920937332e-1;
const LG7 = 1.479819860511658591e-1;

/** The natural logarithm, bit-identical on every engine (fdlibm's __ieee754_log). */
export function ln(input: number): number {
  let x = input;
  let hx = highWord(x);
  const lx = lowWord(x);
  let k = 0;
  if (hx < 0x00100000) {
    // x < 2^-1022: zero, negative or subnormal
    if (((hx & 0x7fffffff) | lx) === 0) return -Infinity;
    if (hx < 0) return Number.NaN;
    k -= 54;
    x *= TWO54; // scale a subnormal up
    hx = highWord(x);
  }
  if (hx >= 0x7ff00000) return x + x; // Infinity or NaN
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  let i = (hx + 0x95f64) & 0x100000;
  x = withHighWord(x, hx | (i ^ 0x3ff00000)); // normalise x or x/2
  k += i >> 20;
  const f = x - 1.0;
  if ((0x000fffff & (2 + hx)) < 3) {
    // |f| < 2^-20
    if (f === 0) return k === 0 ? 0 : k * LN2_HI + k * LN2_LO;
    const r = f * f * (0.5 - 0.3333333333333333 * f);
    return k === 0 ? f - r : k * LN2_HI - ((r - k * LN2_LO) - f);
  }
  const s = f / (2.0 + f);
  const dk = k;
  const z = s * s;
  i = hx - 0x6147a;
  const w = z * z;
  const j = 0x6b851 - hx;
  const t1 = w * (LG2 + w * (LG4 + w * LG6));
  const t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
  i |= j;
  const r = t2 + t1;
  if (i > 0) {
    const hfsq = 0.5 * f * f;
    return k === 0 ? f - (hfsq - s * (hfsq + r)) : dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f);
  }
  return k === 0 ? f - s * (f - r) : dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f);
}

const O_THRESHOLD = 7.09782712893383973096e2;
const U_THRESHOLD = -7.45133219101941108420e2;
const INV_LN2 = 1.44269504088896338700;
const TWO_M1000 = 9.33263618503218878990e-302;
const P1 = 1.66666666666666019037e-1;
const P2 = -2.77777777770155933842e-3;
const P3 = 6.61375632143793436117e-5;
const P4 = -1.65339022054652515390e-6;
const P5 = 4.13813679705723846039e-8;

/** e to the power x, bit-identical on every engine (fdlibm's __ieee754_exp). */
export function exp(input: number): number {
  let x = input;
  let hx = highWord(x);
  const negative = hx < 0;
  hx &= 0x7fffffff;
  if (hx >= 0x40862e42) {
    // |x| >= 709.78...
    if (hx >= 0x7ff00000) {
      if (((hx & 0xfffff) | lowWord(x)) !== 0) return x + x; // NaN
      return negative ? 0 : x; // exp(+-Infinity)
    }
    if (x > O_THRESHOLD) return Infinity;
    if (x < U_THRESHOLD) return 0;
  }
  let k = 0;
  let hi = 0;
  let lo = 0;
  if (hx > 0x3fd62e42) {
    // |x| > 0.5 ln2: reduce to x = k ln2 + r, |r| <= 0.5 ln2
    if (hx < 0x3ff0a2b2) {
      hi = negative ? x + LN2_HI : x - LN2_HI;
      lo = negative ? -LN2_LO : LN2_LO;
      k = negative ? -1 : 1;
    } else {
      k = Math.trunc(INV_LN2 * x + (negative ? -0.5 : 0.5));
      hi = x - k * LN2_HI; // exact
      lo = k * LN2_LO;
    }
    x = hi - lo;
  } else if (hx < 0x3e300000) {
    return 1 + x; // |x| < 2^-28
  }
  const t = x * x;
  const c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  if (k === 0) return 1 - ((x * c) / (c - 2.0) - x);
  const y = 1 - ((lo - (x * c) / (2.0 - c)) - hi);
  if (k >= -1021) return withHighWord(y, highWord(y) + (k << 20));
  return withHighWord(y, highWord(y) + ((k + 1000) << 20)) * TWO_M1000;
}
