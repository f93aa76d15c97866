// A Content-Security-Policy hash source for an inline script or style (CSP Level 3, "hash-source"):
// 'sha256-<base64 of the SHA-256 of the element's text, as UTF-8>'. The browser hashes exactly the text
// between the tags, so the text hashed must be the text written into the page, after any escaping.
import { createHash } from 'node:crypto';

export function cspHashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}
