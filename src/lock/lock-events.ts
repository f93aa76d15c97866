// `lockstep lock --json`: one JSON object per line on standard output, for scripts (issue 12): granted
// (with the token and the time), fence, released, refused, exit. The token is printed here and only here:
// ADR-22 keeps tokens out of logs and messages (stderr stays token-free), but a script that asked for
// --json asked for the token on its own stdout, as the command itself gets it in LOCKSTEP_TOKEN.
import type { FenceReason } from '../../core/client/client-session.js';
import { formatToken } from '../../core/token.js';
import type { FencingToken } from '../../core/units.js';

export type LockEvent =
  | { readonly event: 'granted'; readonly key: string; readonly token: string; readonly fingerprint: string; readonly fenceInMs: number }
  | { readonly event: 'fence'; readonly key: string; readonly reason: FenceReason }
  | { readonly event: 'released'; readonly key: string; readonly released: boolean }
  | { readonly event: 'refused'; readonly key: string; readonly code: string; readonly message: string }
  | { readonly event: 'exit'; readonly code: number };

export type EmitLockEvent = (event: LockEvent) => void;

/** Each event stamped with the wall-clock time it was printed, ISO 8601 in UTC. */
export function jsonLineEvents(write: (line: string) => void, nowMs: () => number = Date.now): EmitLockEvent {
  return (event) => write(JSON.stringify({ ...event, time: new Date(nowMs()).toISOString() }));
}

/** `fenceInMs`: how long from this grant until the fence deadline unless renewed (ADR-12; the client's clock is monotonic, not the wall). */
export function grantedEvent(key: string, token: FencingToken, fingerprint: string, fenceInMs: number): LockEvent {
  return { event: 'granted', key, token: formatToken(token), fingerprint, fenceInMs: Math.max(0, Math.round(fenceInMs)) };
}

/** No --json: nothing is printed. */
export const noEvents: EmitLockEvent = () => undefined;
