// The simulation kernel's host-yield port in a browser (sim/kernel/kernel.ts explains the drain): a
// MessageChannel round trip is a macrotask, so when it resolves every microtask the last event started
// has run. The node hosts drain through the tick queue instead (src/host-yield.ts); browsers have no
// setImmediate, and a zero timeout is clamped to 4 ms after a few nestings, which would make a run of
// a million drains take an hour. One channel serves every yield: messages on a port arrive in order,
// so the resolvers wait in a FIFO.

export interface HostYield {
  (): Promise<void>;
  /** Closes the channel; a yield after this rejects. */
  close(): void;
}

export function messageChannelYield(): HostYield {
  const channel = new MessageChannel();
  const waiting: Array<() => void> = [];
  let closed = false;
  channel.port1.onmessage = () => waiting.shift()?.();
  const yieldToHost = (): Promise<void> => {
    if (closed) return Promise.reject(new Error('yieldToHost: the channel is closed; make a new one with messageChannelYield()'));
    return new Promise<void>((resolve) => {
      waiting.push(resolve);
      channel.port2.postMessage(null);
    });
  };
  return Object.assign(yieldToHost, {
    close: () => {
      closed = true;
      channel.port1.close();
      channel.port2.close();
    },
  });
}
