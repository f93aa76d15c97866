// Envoy's x-forwarded-client-cert header (ADR-18, ADR-19): behind Envoy, which terminates the caller's mTLS,
// the arbiter's TLS peer is Envoy, and the caller's SPIFFE ID arrives in this header. The format is Envoy's
// (envoy/docs, "x-forwarded-client-cert"): elements separated by commas, each a list of key=value pairs
// separated by semicolons (keys By, Hash, Cert, Chain, Subject, URI, DNS), a value in double quotes when
// it holds a comma, semicolon or equals sign, with \" for a quote. With forward_client_cert_details:
// SANITIZE_SET (deploy/envoy.yaml) Envoy sends exactly one element, the current caller's; a header of
// several elements was appended along a chain of proxies, and is refused here, as is anything malformed.
import { LockError } from '../../core/lock-error.js';

export const XFCC_HEADER = 'x-forwarded-client-cert';
/** Longer than any one element Envoy writes with URI only; a longer header is refused unread. */
const MAX_XFCC_LENGTH = 4096;

export type XfccElement = ReadonlyArray<readonly [key: string, value: string]>;

/** The elements of a header value; a LockError('unauthenticated') naming what is wrong otherwise. */
export function parseXfcc(header: string): XfccElement[] {
  if (header.length > MAX_XFCC_LENGTH) throw refused(`is ${header.length} characters, above ${MAX_XFCC_LENGTH}`);
  const elements: Array<Array<readonly [string, string]>> = [[]];
  let i = 0;
  while (i < header.length) {
    const eq = header.indexOf('=', i);
    if (eq < 0) throw refused(`has a pair without '=' at character ${i + 1}`);
    const key = header.slice(i, eq).trim();
    if (!/^[A-Za-z]+$/.test(key)) throw refused(`has a key ${JSON.stringify(key.slice(0, 40))} that is not a word`);
    const { value, end } = readValue(header, eq + 1);
    elements.at(-1)?.push([key, value]);
    if (end >= header.length) break;
    const separator = header[end];
    if (separator === ',') elements.push([]);
    else if (separator !== ';') throw refused(`has ${JSON.stringify(separator)} where ';' or ',' belongs, at character ${end + 1}`);
    i = end + 1;
  }
  if (elements.some((element) => element.length === 0)) throw refused('has an empty element');
  return elements;
}

function readValue(text: string, start: number): { value: string; end: number } {
  if (text[start] !== '"') {
    let end = start;
    while (end < text.length && text[end] !== ';' && text[end] !== ',') end++;
    const value = text.slice(start, end);
    if (value.includes('"') || value.includes('=')) throw refused(`has an unquoted value holding '"' or '=' at character ${start + 1}`);
    return { value, end };
  }
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      value += text[i + 1];
      i++;
    } else if (c === '"') {
      return { value, end: i + 1 };
    } else {
      value += c;
    }
  }
  throw refused(`has a quoted value that does not end, from character ${start + 1}`);
}

/**
 * The caller's SPIFFE ID from the header a trusted proxy (`proxy`, its own SPIFFE ID) sent: exactly one
 * element, exactly one spiffe:// URI in it, and, when the element says which proxy wrote it (By), that
 * proxy. Anything else is refused: a proxy that forwards no caller, or several, names nobody.
 */
export function callerFromXfcc(header: string | undefined, proxy: string): string {
  if (header === undefined || header === '') throw refused(`is missing: the trusted proxy ${proxy} sent no caller; set forward_client_cert_details: SANITIZE_SET with set_current_client_cert_details uri: true`);
  const elements = parseXfcc(header);
  if (elements.length !== 1) throw refused(`has ${elements.length} elements: a chain of proxies, not one caller; the proxy in front must sanitise it (SANITIZE_SET)`);
  const element = elements[0] ?? [];
  const by = element.filter(([key]) => key.toLowerCase() === 'by').map(([, value]) => value);
  if (by.length > 0 && !by.includes(proxy)) throw refused(`was written By ${by.join(', ').slice(0, 200)}, not by the trusted proxy ${proxy} that sent it`);
  const uris = element.filter(([key, value]) => key.toLowerCase() === 'uri' && value.toLowerCase().startsWith('spiffe://')).map(([, value]) => value);
  if (uris.length !== 1) throw refused(`names ${uris.length === 0 ? 'no spiffe:// URI' : `${uris.length} spiffe:// URIs`}; a caller is exactly one SPIFFE ID (ADR-19)`);
  return uris[0] as string;
}

function refused(what: string): LockError {
  return new LockError('unauthenticated', `the ${XFCC_HEADER} header ${what}`);
}
