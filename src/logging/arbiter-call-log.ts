// One log line per arbiter call (ADR-22), on its server side (ArbiterService): who asked (the transport's
// Caller, ADR-19), what was asked and how it ended, at `debug` for answers and `info` for refusals a team
// may need to see (denied, leak, sealed...). Issue 28: a line carries named, bounded fields picked out of
// the request and answer (call-fields.ts), never the request or answer themselves: a 32 MiB key logged
// whole added 100 MB of log, and a token quoted in a refusal's message went past the field-path
// redaction. Tokens are censored by value in messages; the logger's path redaction stays as a second net.
import { isLockError } from '../../core/lock-error.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import { ARBITER_METHOD_NAMES } from '../../core/ports/arbiter-methods.js';
import { answerFields, callerField, refusalMessage, requestFields } from './call-fields.js';
import type { LockstepLogger } from './logger.js';

type Method = keyof ArbiterService;
// Every method, listed once from the port (core/ports/arbiter-methods.ts): one left out was missing from the
// logged arbiter, an internal error on every call (issue 29).
const METHODS: readonly Method[] = ARBITER_METHOD_NAMES;

/**
 * Expected, frequent outcomes: logged at debug like answers (a contended key is the queue working; a
 * caller at its quota is counted by the metrics, and a flood of refusals must not become a flood of log).
 */
const ROUTINE_CODES: ReadonlySet<string> = new Set(['contended', 'wait-timeout', 'resource-exhausted']);

export function logArbiterCalls(api: ArbiterService, logger: LockstepLogger): ArbiterService {
  const logged = {} as Record<Method, (...args: unknown[]) => Promise<unknown>>;
  for (const method of METHODS) {
    logged[method] = async (...args: unknown[]) => {
      const call = (api[method] as (...a: unknown[]) => Promise<unknown>).apply(api, args);
      const [caller, request] = args;
      // Picked out only for a line that is written (issue 30): at serve's default level an answer writes
      // none, and the fields cost more per call than the line's level check.
      const fields = () => ({ call: method, caller: callerField(caller), ...requestFields(request) });
      try {
        const answer = await call;
        if (logger.isLevelEnabled('debug')) logger.debug({ ...fields(), ...answerFields(answer) }, `${method} answered`);
        return answer;
      } catch (error) {
        const code = isLockError(error) ? error.code : 'internal';
        const refused = { ...fields(), code, error: refusalMessage(error, request) };
        if (ROUTINE_CODES.has(code)) logger.debug(refused, `${method} refused: ${code}`);
        else logger.info(refused, `${method} refused: ${code}`);
        throw error;
      }
    };
  }
  return logged as unknown as ArbiterService;
}
