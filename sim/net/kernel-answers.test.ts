import { describe, expect, it } from 'vitest';
import { Kernel } from '../kernel/kernel.js';
import { SimProcess } from '../process/process.js';
import type { Unreachable } from './kernel-answers.js';
import { Network } from './network.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

function world() {
  const kernel = new Kernel({ seed: 'kernel-answers', yieldToHost });
  const network = new Network<string>(kernel, { defaults: { latency: { kind: 'constant', ms: 3 } } });
  const [client, quiet, server] = ['client', 'quiet', 'server'].map((name) => new SimProcess(kernel, { name })) as [SimProcess, SimProcess, SimProcess];
  const told: string[] = [];
  const note = (who: string) => (n: Unreachable) => told.push(`${who}: ${n.reason} by ${n.peer}${n.messageId === undefined ? '' : ` of ${n.messageId}`} at ${kernel.now()}`);
  network.listen(client, () => {}, note('client'));
  network.listen(quiet, () => {}); // no onUnreachable: the negative control, told nothing
  network.listen(server, () => {});
  return { kernel, network, client, quiet, server, told };
}

describe('what a dead process\'s host answers its peers (issue 32)', () => {
  it('resets the open connections of a crash, and refuses a connect while down, one latency back', async () => {
    const { kernel, network, client, quiet, server, told } = world();
    network.send(client, server, 'hello'); // connected at 3
    network.send(quiet, server, 'hello');
    kernel.schedule(10, () => server.crash()); // reset reaches the client at 13
    kernel.schedule(20, () => network.send(client, server, 'again')); // refused: arrives at 23, answer at 26
    kernel.schedule(20, () => network.send(quiet, server, 'again'));
    await kernel.runUntilQuiescent();
    expect(told).toEqual(['client: reset by server at 13', 'client: refused by server of 2 at 26']);
  });

  it('tells a message in flight across a restart that its connection was reset, and loses an answer to a partition', async () => {
    const { kernel, network, client, server, told } = world();
    network.send(client, server, 'in flight');
    kernel.schedule(1, () => server.crash());
    kernel.schedule(2, () => server.restart()); // arrives at 3 in a new incarnation: reset, told at 6
    kernel.schedule(10, () => server.crash());
    kernel.schedule(10, () => network.partition({ from: ['server'], to: ['client'], direction: 'one-way' }));
    kernel.schedule(11, () => network.send(client, server, 'refused, but the answer is cut'));
    await kernel.runUntilQuiescent();
    expect(told).toEqual(['client: reset by server of 0 at 6']);
  });

  it('answers nothing for a machine that lost power, until its process restarts', async () => {
    const { kernel, network, client, server, told } = world();
    network.send(client, server, 'hello'); // connected at 3
    kernel.schedule(10, () => server.crash({ powerLoss: true })); // no reset: no kernel left
    kernel.schedule(20, () => network.send(client, server, 'unanswered')); // no refusal either
    kernel.schedule(30, () => server.restart());
    kernel.schedule(29, () => network.send(client, server, 'sent while down, arrives at the new incarnation')); // at 32: refused, told at 35
    await kernel.runUntilQuiescent();
    expect(told).toEqual(['client: refused by server of 2 at 35']);
  });
});
