// Seams: the point where a test can swap the client library's fence-deadline rule for a deliberately
// broken variant (a mutant, scenarios/mutants.ts), to prove the checkers notice. Production never passes
// seams: they are not in LockClientOptions, and the honest default below is ADR-12's rule.

export interface ClientSeams {
  /**
   * ADR-12: the instant from which a successful keepalive's TTL is counted, given when it was sent and
   * when its answer arrived (both on the holder's clock). Honest: the send time, because the leader
   * renewed the lease no earlier than that, so the deadline precedes the leader's expiry.
   */
  readonly renewedAtMs: (sentMs: number, answeredMs: number) => number;
}

export const HONEST_CLIENT_SEAMS: ClientSeams = {
  renewedAtMs: (sentMs) => sentMs,
};
