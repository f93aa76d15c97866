// Every link of a gate run through a proxy (issue 15): one peer proxy in front of each etcd member's peer
// port (the member advertises the proxy's URL, so every other member dials it, and the dialer is named by
// its request's X-PeerURLs), and one proxy per (dialer, target) for client links (an arbiter to a member,
// a client to an arbiter), so the dialer is known by construction. The partition and slowLink methods
// are the network half of the gate's FaultTarget (scenarios/fault-target.ts): the same names the
// schedule uses, a heal returned for each.
import { LOOPBACK, LinkProxy } from './link-proxy.js';
import { LinkRules } from './link-rules.js';

export class LinkMesh {
  readonly rules = new LinkRules();
  private readonly proxies: LinkProxy[] = [];
  /** A member's advertised peer URL (its proxy's) -> its name. */
  private readonly peerNames = new Map<string, string>();
  private readonly clientLinks = new Map<string, LinkProxy>();

  /**
   * A proxy in front of `member`'s peer port: give the member `--initial-advertise-peer-urls` (and every
   * member's `--initial-cluster`) the returned URL, and `--listen-peer-urls` its real port.
   */
  async addPeer(member: string, peerPort: number): Promise<string> {
    const proxy = await LinkProxy.start({ rules: this.rules, destination: member, targetPort: peerPort, source: (head) => this.memberOf(head.peerUrls) });
    this.proxies.push(proxy);
    this.peerNames.set(proxy.url, member);
    return proxy.url;
  }

  /** A proxy for `dialer`'s connections to `target` listening at `targetPort`; returns the host:port to dial instead. */
  async addClientLink(dialer: string, target: string, targetPort: number): Promise<string> {
    const name = `${dialer}->${target}`;
    if (this.clientLinks.has(name)) throw new Error(`the link ${name} has a proxy already`);
    const proxy = await LinkProxy.start({ rules: this.rules, destination: target, targetPort, source: dialer });
    this.proxies.push(proxy);
    this.clientLinks.set(name, proxy);
    return `${LOOPBACK}:${proxy.port}`;
  }

  /** Cuts every link from each of `from` to each of `to`, and back unless oneWay; returns the heal. */
  partition(from: readonly string[], to: readonly string[], oneWay: boolean): () => void {
    return this.rules.cut(from, to, oneWay);
  }

  /** Adds `extraDelayMs` to those links; returns the heal. */
  slowLink(from: readonly string[], to: readonly string[], extraDelayMs: number, oneWay: boolean): () => void {
    return this.rules.slow(from, to, extraDelayMs, oneWay);
  }

  /** Resets the connections a dialer had to `target` (the target was killed: its dialers see resets, not silence). */
  resetLinksTo(target: string): void {
    for (const [name, proxy] of this.clientLinks) if (name.endsWith(`->${target}`)) proxy.resetAll();
  }

  /** `target` was killed: every proxy in front of it resets its connections and refuses new ones until targetUp. */
  async targetDown(target: string): Promise<void> {
    await Promise.all(this.proxies.filter((proxy) => proxy.destination === target).map((proxy) => proxy.down()));
  }

  /** `target` is starting again: its proxies listen again, on the same ports. */
  async targetUp(target: string): Promise<void> {
    await Promise.all(this.proxies.filter((proxy) => proxy.destination === target).map((proxy) => proxy.up()));
  }

  async close(): Promise<void> {
    await Promise.all(this.proxies.splice(0).map((proxy) => proxy.close()));
    this.clientLinks.clear();
    this.peerNames.clear();
  }

  private memberOf(peerUrls: readonly string[]): string | undefined {
    for (const url of peerUrls) {
      const name = this.peerNames.get(url.replace(/\/+$/, ''));
      if (name !== undefined) return name;
    }
    return undefined;
  }
}
