// inspect(): who holds a key, with what token, and whether its class is fenced (ADR-16/20). Per-key
// questions go here, never to metrics (ADR-22).
import type { LockKey } from '../lock-key.js';
import { holderKeyOf } from '../lock-key.js';
import type { InspectResponse } from '../ports/arbiter-api.js';
import { packToken } from '../token.js';
import type { LogGateway } from './log-gateway.js';
import type { ClassLookup } from './policy.js';
import { parseHolderValue } from './records.js';

export async function inspectKey(gateway: LogGateway, classes: ClassLookup, key: LockKey, epoch: number): Promise<InspectResponse> {
  const response = await gateway.range({ key: holderKeyOf(key) });
  const kv = response.kvs[0];
  const holder = kv === undefined ? undefined : parseHolderValue(kv.value);
  if (kv === undefined || holder === undefined) return { key: key.text, holder: undefined, enforcement: undefined };
  return {
    key: key.text,
    holder: { ...holder, token: packToken(epoch, kv.createRevision) },
    enforcement: classes.get(key.namespace, holder.className)?.enforcement,
  };
}
