// The values the arbiter keeps in the log: the epoch record (ADR-03), holder values (ADR-13), session
// records (ADR-10) and force-release records (ADR-20). JSON, parsed defensively: the log is shared
// state, and a value we cannot read is a reason to refuse, not to guess.
import { BoundedCache } from '../bounded-cache.js';
import type { LeaseId } from '../units.js';
import { leaseId } from '../units.js';

export const EPOCH_KEY = '/sys/epoch';
export const FORCE_PREFIX = '/sys/force/';
export const SESSION_PREFIX = '/s/';

export interface EpochRecord {
  readonly epoch: number;
  /** The cluster ID the epoch was minted for (ADR-03). */
  readonly clusterId: bigint;
}

export interface HolderValue {
  readonly identity: string;
  /**
   * Which replica of the identity's workload holds it (issue 29): a label the client names, never a
   * credential. '' for a client that names none, and for every record written before instances existed.
   */
  readonly instance: string;
  readonly sessionId: LeaseId;
  readonly className: string;
}

export interface SessionRecord {
  readonly identity: string;
  /** The client's instance label (issue 29); '' when it named none. */
  readonly instance: string;
  readonly ttlSeconds: number;
}

/** An instance is written only when named, so a record of a client that names none reads as it always did. */
function instanceField(instance: string): { instance?: string } {
  return instance === '' ? {} : { instance };
}

/** A record's instance: absent (written before issue 29, or by a client naming none) reads as ''. */
function readInstance(value: Record<string, unknown>): string | undefined {
  const { instance } = value;
  if (instance === undefined) return '';
  return typeof instance === 'string' ? instance : undefined;
}

export interface ForceRecord {
  readonly key: string;
  readonly token: string;
  readonly holder: string;
  readonly requester: string;
  readonly approver: string;
  readonly reason: string;
  readonly enforcement: 'fenced' | 'advisory';
}

export function formatEpochRecord(record: EpochRecord): string {
  return JSON.stringify({ epoch: record.epoch, clusterId: record.clusterId.toString(10) });
}

export function parseEpochRecord(text: string): EpochRecord | undefined {
  const value = parseObject(text);
  if (value === undefined) return undefined;
  const { epoch, clusterId } = value;
  if (typeof epoch !== 'number' || !Number.isInteger(epoch) || epoch < 0) return undefined;
  if (typeof clusterId !== 'string' || !/^[0-9]+$/.test(clusterId)) return undefined;
  return { epoch, clusterId: BigInt(clusterId) };
}

export function formatHolderValue(holder: HolderValue): string {
  return JSON.stringify({ identity: holder.identity, ...instanceField(holder.instance), session: holder.sessionId.toString(10), class: holder.className });
}

/** Holder values read lately: the audit reads each hold's value at its grant and at its end, and sessions hold many keys (issue 16). */
const holderValues = new BoundedCache<string, HolderValue | undefined>(4096);

export function parseHolderValue(text: string): HolderValue | undefined {
  return holderValues.get(text, readHolderValue);
}

function readHolderValue(text: string): HolderValue | undefined {
  const value = parseObject(text);
  if (value === undefined) return undefined;
  const { identity, session, class: className } = value;
  const instance = readInstance(value);
  if (typeof identity !== 'string' || typeof className !== 'string' || instance === undefined) return undefined;
  if (typeof session !== 'string' || !/^[0-9]+$/.test(session)) return undefined;
  return { identity, instance, sessionId: leaseId(BigInt(session)), className };
}

export function sessionKeyOf(sessionId: LeaseId): string {
  return `${SESSION_PREFIX}${sessionId.toString(10)}`;
}

export function formatSessionRecord(record: SessionRecord): string {
  return JSON.stringify({ identity: record.identity, ...instanceField(record.instance), ttlSeconds: record.ttlSeconds });
}

export function parseSessionRecord(text: string): SessionRecord | undefined {
  const value = parseObject(text);
  if (value === undefined) return undefined;
  const { identity, ttlSeconds } = value;
  const instance = readInstance(value);
  if (typeof identity !== 'string' || typeof ttlSeconds !== 'number' || instance === undefined) return undefined;
  return { identity, instance, ttlSeconds };
}

export function formatForceRecord(record: ForceRecord): string {
  return JSON.stringify(record);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
