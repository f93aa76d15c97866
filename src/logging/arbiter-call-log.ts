// One log line per arbiter call (ADR-22), on its server side (ArbiterService): who asked (the transport's
// Caller, ADR-19), what was asked and how it ended, at `debug` for answers and
// `info` for refusals a team may need to see (denied, leak, sealed...). Requests and answers are logged
// as objects, tokens included, and the logger's redaction censors them (token-redaction.ts): a field
// added to a response later is covered by the same paths, not by care in each log call.
import { isLockError } from '../../core/lock-error.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import type { LockstepLogger } from './logger.js';

type Method = keyof ArbiterService;

const METHODS = [
  'openSession', 'keepAlive', 'closeSession', 'acquire', 'release', 'validate', 'inspect', 'describeKey',
  'requestForceRelease', 'approveForceRelease', 'requestEpochAdvance', 'approveEpochAdvance', 'status',
] as const satisfies readonly Method[];
/** Every method listed: one left out was missing from the logged arbiter, an internal error on every call (issue 29). */
const EVERY_METHOD_LISTED: [Exclude<Method, (typeof METHODS)[number]>] extends [never] ? true : never = true;
void EVERY_METHOD_LISTED;

/** Expected, frequent outcomes: logged at debug like answers (a contended key is the queue working). */
const ROUTINE_CODES: ReadonlySet<string> = new Set(['contended', 'wait-timeout']);

export function logArbiterCalls(api: ArbiterService, logger: LockstepLogger): ArbiterService {
  const logged = {} as Record<Method, (...args: unknown[]) => Promise<unknown>>;
  for (const method of METHODS) {
    logged[method] = async (...args: unknown[]) => {
      const call = (api[method] as (...a: unknown[]) => Promise<unknown>).apply(api, args);
      const [caller, request] = args as [{ identity: string; authenticated: boolean }, unknown];
      try {
        const answer = await call;
        logger.debug({ call: method, caller, request, answer }, `${method} answered`);
        return answer;
      } catch (error) {
        const code = isLockError(error) ? error.code : 'internal';
        const fields = { call: method, caller, request, code, err: error };
        if (ROUTINE_CODES.has(code)) logger.debug(fields, `${method} refused: ${code}`);
        else logger.info(fields, `${method} refused: ${code}`);
        throw error;
      }
    };
  }
  return logged as unknown as ArbiterService;
}
