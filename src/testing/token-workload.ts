// A small contended workload over an arbiter's server side (ArbiterService), for the tests that assert no token reaches telemetry
// (ADR-22): several identities take turns on a few keys (waiting in line), one tries a held key without
// waiting (contended), holders validate and inspect their keys (a token in a request and in an answer),
// and everyone releases. It returns every token it was granted: what the tests look for.
import { isLockError } from '../../core/lock-error.js';
import type { FencingToken } from '../../core/units.js';
import { type ArbiterService, authenticated } from '../../core/ports/caller.js';

export interface TokenWorkloadOptions {
  readonly identities: readonly string[];
  readonly keys: readonly string[];
  readonly className: string;
  readonly ttlSeconds: number;
  readonly rounds: number;
}

export async function runTokenWorkload(api: ArbiterService, options: TokenWorkloadOptions): Promise<FencingToken[]> {
  const tokens: FencingToken[] = [];
  const sessions = await Promise.all(options.identities.map((identity) => api.openSession(authenticated(identity), { ttlSeconds: options.ttlSeconds })));
  try {
    await Promise.all(
      sessions.map(async (session, index) => {
        for (let round = 0; round < options.rounds; round += 1) {
          const key = options.keys[(index + round) % options.keys.length] ?? '';
          const grant = await api.acquire(authenticated(session.identity), { sessionId: session.sessionId, key, className: options.className, waitMs: 20_000 });
          tokens.push(grant.token);
          await api.validate(authenticated(session.identity), { key, token: grant.token.toString(10) });
          await api.inspect(authenticated(session.identity), key);
          const rival = sessions[(index + 1) % sessions.length];
          if (rival !== undefined && rival !== session) {
            await api.acquire(authenticated(rival.identity), { sessionId: rival.sessionId, key, className: options.className, waitMs: 0 }).then(
              async (stolen) => {
                tokens.push(stolen.token); // the key was free after all (cannot happen while held): release it
                await api.release(authenticated(rival.identity), { sessionId: rival.sessionId, key, token: stolen.token });
              },
              (error: unknown) => {
                if (!isLockError(error, 'contended')) throw error;
              },
            );
          }
          await api.release(authenticated(session.identity), { sessionId: session.sessionId, key, token: grant.token });
        }
      }),
    );
  } finally {
    await Promise.all(sessions.map((s) => api.closeSession(authenticated(s.identity), { sessionId: s.sessionId }).catch(() => undefined)));
  }
  return tokens;
}
