// One log line per ArbiterApi call (ADR-22): what was asked and how it ended, at `debug` for answers and
// `info` for refusals a team may need to see (denied, leak, sealed...). Requests and answers are logged
// as objects, tokens included, and the logger's redaction censors them (token-redaction.ts): a field
// added to a response later is covered by the same paths, not by care in each log call.
import { isLockError } from '../../core/lock-error.js';
import type { ArbiterApi } from '../../core/ports/arbiter-api.js';
import type { LockstepLogger } from './logger.js';

type Method = keyof ArbiterApi;

const METHODS: readonly Method[] = ['openSession', 'keepAlive', 'closeSession', 'acquire', 'release', 'validate', 'inspect', 'requestForceRelease', 'approveForceRelease', 'requestEpochAdvance', 'approveEpochAdvance', 'status'];

/** Expected, frequent outcomes: logged at debug like answers (a contended key is the queue working). */
const ROUTINE_CODES: ReadonlySet<string> = new Set(['contended', 'wait-timeout']);

export function logArbiterCalls(api: ArbiterApi, logger: LockstepLogger): ArbiterApi {
  const logged = {} as Record<Method, (...args: unknown[]) => Promise<unknown>>;
  for (const method of METHODS) {
    logged[method] = async (...args: unknown[]) => {
      const call = (api[method] as (...a: unknown[]) => Promise<unknown>).apply(api, args);
      const request = args[0];
      try {
        const answer = await call;
        logger.debug({ call: method, request, answer }, `${method} answered`);
        return answer;
      } catch (error) {
        const code = isLockError(error) ? error.code : 'internal';
        const fields = { call: method, request, code, err: error };
        if (ROUTINE_CODES.has(code)) logger.debug(fields, `${method} refused: ${code}`);
        else logger.info(fields, `${method} refused: ${code}`);
        throw error;
      }
    };
  }
  return logged as unknown as ArbiterApi;
}
