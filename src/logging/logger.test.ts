// The logger censors token fields at every depth this code base logs them, in JSON and human lines;
// the control is a pino logger without the redaction, whose line does carry the token.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { tokenLeaks } from '../testing/token-leak.js';
import { REDACTED, createLogger, humanLine } from './index.js';

const TOKEN = (1n << 48n) + 4242n;

function memoryStream(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

const ENTRY = {
  token: TOKEN,
  request: { key: 'orders/a', token: TOKEN.toString(10), expectedToken: TOKEN.toString(10) },
  answer: { holder: { token: TOKEN }, grant: { token: TOKEN, revision: 4242n, epoch: 1 } },
  response: { valid: true, currentToken: TOKEN },
};

describe('createLogger', () => {
  it('censors tokens and their revisions at depth 0, 1 and 2, keeping the other fields', () => {
    const out = memoryStream();
    createLogger({ json: true, destination: out.stream }).info(ENTRY, 'granted');
    const line = JSON.parse(out.text()) as Record<string, Record<string, unknown>>;
    expect(line['token']).toBe(REDACTED);
    expect(line['request']).toEqual({ key: 'orders/a', token: REDACTED, expectedToken: REDACTED });
    expect(line['answer']).toEqual({ holder: { token: REDACTED }, grant: { token: REDACTED, revision: REDACTED, epoch: 1 } });
    expect(tokenLeaks(out.text(), [TOKEN])).toEqual([]);
  });

  it('human lines are rendered from the censored entry', () => {
    const out = memoryStream();
    createLogger({ json: false, destination: out.stream }).warn(ENTRY, 'granted');
    expect(out.text()).toMatch(/ WARN granted token=\[redacted\] /);
    expect(tokenLeaks(out.text(), [TOKEN])).toEqual([]);
  });

  it('the control: the same entry through pino without the redaction carries the token', () => {
    const out = memoryStream();
    pino({}, out.stream).info(ENTRY, 'granted');
    expect(tokenLeaks(out.text(), [TOKEN])).not.toEqual([]);
  });

  it('honours the level', () => {
    const out = memoryStream();
    const logger = createLogger({ json: true, level: 'warn', destination: out.stream });
    logger.info('quiet');
    logger.error('loud');
    expect(out.text().trim().split('\n').map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['loud']);
  });

  it('humanLine leaves a line that is not JSON as it is', () => {
    expect(humanLine('plain text')).toBe('plain text');
  });
});
