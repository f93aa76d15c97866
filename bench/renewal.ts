// Sessions opened for the bench must outlive a long run: what the client library does for a holder
// (ADR-10/12), done here for the bench's sessions, at a third of the TTL as etcd's own clients do.
import { type ArbiterService, authenticated } from '../core/ports/caller.js';
import type { Session } from '../core/ports/arbiter-api.js';

export interface Renewal {
  stop(): void;
}

export function renewSessions(arbiter: ArbiterService, sessions: readonly Session[], onError: (message: string) => void): Renewal {
  const ttlSeconds = sessions[0]?.ttlSeconds ?? 15;
  let running = false;
  const timer = setInterval(() => {
    if (running) return; // a slow round is not doubled up
    running = true;
    void Promise.all(sessions.map((s) => arbiter.keepAlive(authenticated(s.identity), { sessionId: s.sessionId })))
      .catch((error: unknown) => onError(`renewing the bench's sessions failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        running = false;
      });
  }, (ttlSeconds * 1000) / 3);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
