// What a command needs from the outside world, so commands are testable without a child process.
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** Exit codes shared by every command. */
export const ExitCode = {
  ok: 0,
  /** A check failed (an invalid class, a safety violation). */
  failed: 1,
  /** Bad input: unreadable file, bad flag, bad YAML. */
  badInput: 2,
  /** Waited for a lock and it stayed held. */
  waitTimeout: 3,
  /** The lock was lost (fence deadline) while the command ran. */
  fenced: 4,
  /** The lock service refused: sealed, unavailable, denied. */
  refused: 5,
  /**
   * The caller was not authenticated: the TLS handshake was refused (no client certificate, one from
   * another CA, an expired one, a wrong --ca) or the certificate names no single SPIFFE ID. Nothing was
   * done; the fix is the certificate, not a retry (issue 29).
   */
  unauthenticated: 6,
  /**
   * An unexpected error: a bug in lockstep, or the system refusing an operation (a file that could not be
   * written, a disk full). Never 1, which says a check failed. sysexits.h's EX_SOFTWARE.
   */
  internal: 70,
} as const;
