// A small contended workload over an ArbiterApi, for the tests that assert no token reaches telemetry
// (ADR-22): several identities take turns on a few keys (waiting in line), one tries a held key without
// waiting (contended), holders validate and inspect their keys (a token in a request and in an answer),
// and everyone releases. It returns every token it was granted: what the tests look for.
import { isLockError } from '../../core/lock-error.js';
import type { ArbiterApi } from '../../core/ports/arbiter-api.js';
import type { FencingToken } from '../../core/units.js';

export interface TokenWorkloadOptions {
  readonly identities: readonly string[];
  readonly keys: readonly string[];
  readonly className: string;
  readonly ttlSeconds: number;
  readonly rounds: number;
}

/** `apiFor` is lock.v1 as each identity's transport presents it (ADR-19: no request names its caller). */
export async function runTokenWorkload(apiFor: (identity: string) => ArbiterApi, options: TokenWorkloadOptions): Promise<FencingToken[]> {
  const apis = new Map(options.identities.map((identity) => [identity, apiFor(identity)]));
  const api = (identity: string): ArbiterApi => apis.get(identity) as ArbiterApi;
  const tokens: FencingToken[] = [];
  const sessions = await Promise.all(options.identities.map((identity) => api(identity).openSession({ ttlSeconds: options.ttlSeconds })));
  try {
    await Promise.all(
      sessions.map(async (session, index) => {
        for (let round = 0; round < options.rounds; round += 1) {
          const key = options.keys[(index + round) % options.keys.length] ?? '';
          const grant = await api(session.identity).acquire({ sessionId: session.sessionId, key, className: options.className, waitMs: 20_000 });
          tokens.push(grant.token);
          await api(session.identity).validate({ key, token: grant.token.toString(10) });
          await api(session.identity).inspect(key);
          const rival = sessions[(index + 1) % sessions.length];
          if (rival !== undefined && rival !== session) {
            await api(rival.identity).acquire({ sessionId: rival.sessionId, key, className: options.className, waitMs: 0 }).then(
              async (stolen) => {
                tokens.push(stolen.token); // the key was free after all (cannot happen while held): release it
                await api(rival.identity).release({ sessionId: rival.sessionId, key, token: stolen.token });
              },
              (error: unknown) => {
                if (!isLockError(error, 'contended')) throw error;
              },
            );
          }
          await api(session.identity).release({ sessionId: session.sessionId, key, token: grant.token });
        }
      }),
    );
  } finally {
    await Promise.all(sessions.map((s) => api(s.identity).closeSession({ sessionId: s.sessionId }).catch(() => undefined)));
  }
  return tokens;
}
