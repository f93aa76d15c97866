/**
 * Calendar time, for records a person reads later (ARCHITECTURE.md, ports): the audit tailer stamps each
 * event with the wall time it saw it, because an etcd revision carries no time of its own (ADR-21). Never
 * used for a deadline or an interval: those are measured on the monotonic Clock (ADR-12), which a step of
 * the wall clock (NTP, an operator) cannot move. Real: the host's calendar clock, wired in src/. Simulated: a fixed calendar
 * origin plus the kernel's true time, so a seed replays the same stamps.
 */
export interface WallClock {
  /** Milliseconds since the Unix epoch (UTC). */
  nowMs(): number;
}
