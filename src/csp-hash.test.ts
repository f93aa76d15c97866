import { describe, expect, it } from 'vitest';
import { cspHashSource } from './csp-hash.js';

describe('cspHashSource', () => {
  it('is the base64 SHA-256 of the UTF-8 text, as the CSP spec\'s own example gives it', () => {
    // CSP Level 3 §2.3.1 example: <script>alert('Hello, world.');</script> is allowed by this source.
    expect(cspHashSource("alert('Hello, world.');")).toBe("'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='");
    expect(cspHashSource('é')).not.toBe(cspHashSource('e'));
  });
});
