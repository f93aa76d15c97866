// Errors the simulator makes on its hot paths without capturing a stack (issue 16): capturing one is
// most of what constructing an Error costs, and for these the stack would only point into the
// simulator's own machinery (the kernel's cancel path, the simulated RPC's answer or deadline), never at
// a cause. They stay real Errors of their class, with their name and message; `stack` is just the header.

const errorWithLimit = Error as unknown as { stackTraceLimit: number | undefined };

/** What `make` returns, with no stack captured by any Error it constructs. */
export function withoutStack<T>(make: () => T): T {
  const limit = errorWithLimit.stackTraceLimit;
  errorWithLimit.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    errorWithLimit.stackTraceLimit = limit;
  }
}
