// The structured logger of the lock service (ADR-22): pino, JSON lines for machines (`--json`), and a
// short human line otherwise. Token fields are censored before a line is written (token-redaction.ts),
// in both forms, so neither output can carry a capability; bigints (lease ids, revisions) are written as
// decimal strings (issue 28): a JSON number of 19 digits is rounded by every reader, this one's humanLine
// included, so a logged session id could not be matched to its session.
import { Writable } from 'node:stream';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { REDACTED, tokenRedactionPaths } from './token-redaction.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface CreateLoggerOptions {
  /** JSON lines (true) or one readable line per entry (false). */
  readonly json: boolean;
  /** Default 'info'. */
  readonly level?: LogLevel;
  /** Where lines go. Default: standard error, so a command's stdout stays its output. */
  readonly destination?: NodeJS.WritableStream;
}

export type LockstepLogger = Logger;

export function createLogger(options: CreateLoggerOptions): LockstepLogger {
  const destination = options.destination ?? process.stderr;
  const settings: LoggerOptions = {
    level: options.level ?? 'info',
    base: null, // no pid or hostname in every line: the collector adds the workload's labels
    redact: { paths: tokenRedactionPaths(), censor: REDACTED },
    // A LockError's fields (code, message) are what a reader needs; pino's err serializer keeps them.
    serializers: { err: pino.stdSerializers.err },
    formatters: { level: (label) => ({ level: label }), log: (entry) => idsAsStrings(entry) as Record<string, unknown> },
  };
  const stream: DestinationStream = options.json ? (destination as DestinationStream) : humanLines(destination);
  return pino(settings, stream);
}

/** Every bigint in `value`, a few objects deep (as deep as a log call of this code base goes), as a decimal string. */
export function idsAsStrings(value: unknown, depth = 0): unknown {
  if (typeof value === 'bigint') return value.toString(10);
  if (depth >= 4 || typeof value !== 'object' || value === null || value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => idsAsStrings(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, idsAsStrings(item, depth + 1)]));
}

/** Renders each JSON line pino writes as `LEVEL message key=value ...` (already redacted). */
function humanLines(destination: NodeJS.WritableStream): DestinationStream {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        destination.write(`${humanLine(line)}\n`);
      }
      callback();
    },
  });
}

export function humanLine(jsonLine: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine;
  }
  const { level, time, msg, ...fields } = entry;
  const at = typeof time === 'number' ? new Date(time).toISOString() : '';
  const rest = Object.entries(fields).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [at, String(level ?? '').toUpperCase(), String(msg ?? ''), ...rest].filter((part) => part !== '').join(' ');
}
