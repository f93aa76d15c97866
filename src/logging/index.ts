// Structured logs of the lock service, tokens censored (ADR-22).
export { logArbiterCalls } from './arbiter-call-log.js';
export { type CreateLoggerOptions, type LockstepLogger, type LogLevel, createLogger, humanLine } from './logger.js';
export { REDACTED, TOKEN_FIELDS, tokenRedactionPaths } from './token-redaction.js';
