import { describe, expect, it } from 'vitest';
import { Trace } from './trace.js';

describe('Trace', () => {
  it('hashes records incrementally, independent of field order, without keeping them by default', () => {
    let now = 0;
    const a = new Trace(() => now);
    const b = new Trace(() => now);
    a.record('net.send', { id: 1, to: 'b' }, 'a');
    b.record('net.send', { to: 'b', id: 1 }, 'a');
    expect(a.hash()).toBe(b.hash());
    now = 1.5;
    a.record('x');
    expect(a.hash()).not.toBe(b.hash());
    expect(a.count).toBe(2);
    expect(() => a.records()).toThrow('keepRecords');
  });

  it('is sensitive to time, process, kind and fields', () => {
    const hashOf = (time: number, process: string, kind: string, value: number): string => {
      const trace = new Trace(() => time);
      trace.record(kind, { value }, process);
      return trace.hash();
    };
    const base = hashOf(1, 'p', 'k', 1);
    expect(new Set([base, hashOf(2, 'p', 'k', 1), hashOf(1, 'q', 'k', 1), hashOf(1, 'p', 'j', 1), hashOf(1, 'p', 'k', 2)]).size).toBe(5);
  });

  it('keeps records when asked, up to the named bound, and streams them to subscribers', () => {
    const trace = new Trace(() => 7, { keepRecords: true, maxKeptRecords: 2 });
    const seen: string[] = [];
    const unsubscribe = trace.subscribe((record) => seen.push(record.kind));
    trace.record('a', { n: 1 }, 'p');
    unsubscribe();
    trace.record('b');
    expect(trace.records()).toEqual([
      { index: 0, timeMs: 7, process: 'p', kind: 'a', fields: { n: 1 } },
      { index: 1, timeMs: 7, process: '', kind: 'b', fields: {} },
    ]);
    expect(seen).toEqual(['a']);
    expect(() => trace.record('c')).toThrow('maxKeptRecords (2)');
  });

  it('with hash: false, counts, keeps and streams the very records a hashing trace does, and refuses to give a hash', () => {
    let now = 0;
    const write = (trace: Trace): void => {
      trace.record('net.send', { id: 1, to: 'b' }, 'a');
      now = 2.5;
      trace.record('raft.commit', { index: 3n, entries: [1, 2] }, 'm1');
      trace.record('fault');
    };
    const seen = { hashed: [] as unknown[], unhashed: [] as unknown[] };
    const hashed = new Trace(() => now, { keepRecords: true, listener: (r) => seen.hashed.push(r) });
    write(hashed);
    now = 0;
    const unhashed = new Trace(() => now, { keepRecords: true, hash: false, listener: (r) => seen.unhashed.push(r) });
    write(unhashed);
    expect(unhashed.records()).toEqual(hashed.records());
    expect(seen.unhashed).toEqual(seen.hashed);
    expect(seen.unhashed).toHaveLength(3);
    expect([unhashed.count, unhashed.hashing, hashed.hashing]).toEqual([3, false, true]);
    expect(() => unhashed.hash()).toThrow('made with hash: false and has no hash');
    expect(hashed.hash()).toMatch(/^[0-9a-f]{16}$/);
  });

  it('with hash: false and no listener yet, still counts records and tells a later subscriber the true index', () => {
    const trace = new Trace(() => 1, { hash: false });
    trace.record('a');
    trace.record('b');
    const seen: number[] = [];
    trace.subscribe((record) => seen.push(record.index));
    trace.record('c');
    expect(trace.count).toBe(3);
    expect(seen).toEqual([2]);
  });
  it('tells a listener that names kinds only of those, and says a kind nobody would see is not included', () => {
    const trace = new Trace(() => 1, { hash: false });
    const elections: string[] = [];
    expect(trace.includes('raft.elect')).toBe(false); // no hash, no kept records, no listener
    const unsubscribe = trace.subscribe((record) => elections.push(`${record.kind}@${record.index}`), { kinds: ['raft.elect'] });
    expect([trace.includes('raft.elect'), trace.includes('net.send')]).toEqual([true, false]);
    trace.record('net.send', { id: 1 });
    trace.record('raft.elect', { term: 2 });
    expect(elections).toEqual(['raft.elect@1']); // a record made anyway is still counted
    const everything: string[] = [];
    const unsubscribeAll = trace.subscribe((record) => everything.push(record.kind));
    expect(trace.includes('net.send')).toBe(true);
    trace.record('net.send', { id: 2 });
    unsubscribeAll();
    unsubscribe();
    expect([trace.includes('raft.elect'), trace.includes('net.send')]).toEqual([false, false]);
    trace.record('raft.elect', { term: 3 });
    expect(elections).toEqual(['raft.elect@1']);
    expect(everything).toEqual(['net.send']);
  });

  it('includes every kind but the omitted ones while it hashes or keeps, whoever listens', () => {
    const hashed = new Trace(() => 1, { omitKinds: ['net.send'] });
    const kept = new Trace(() => 1, { hash: false, keepRecords: true });
    hashed.subscribe(() => {}, { kinds: ['raft.elect'] });
    expect([hashed.includes('raft.ready'), hashed.includes('net.send'), kept.includes('raft.ready')]).toEqual([true, false, true]);
  });
});
