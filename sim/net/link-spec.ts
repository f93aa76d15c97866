// A directed link's behaviour as plain data, and how the network resolves it: per-link settings
// override per-region-pair settings, which override the network's defaults, field by field.
import { compileDistribution, type DistributionSpec, type Quantile } from '../kernel/distribution.js';

export interface LinkSpec {
  /** One-way latency. Default: constant 0.5 ms. */
  readonly latency?: DistributionSpec;
  /** Probability a message is lost. Default 0. */
  readonly dropProbability?: number;
  /** Probability a message is delivered twice (the copy with its own latency). Default 0. */
  readonly duplicateProbability?: number;
  /** Added to every latency draw (a slow-link fault). Default 0. */
  readonly extraDelayMs?: number;
  /**
   * Never deliver a message before one sent earlier on the same link, as a TCP connection does (etcd's
   * gRPC and rafthttp streams). Default false: with a non-constant latency, messages may overtake.
   * Ordering does not make a link reliable: set drop and duplicate to 0 for a TCP-like link.
   */
  readonly ordered?: boolean;
}

/** A LinkSpec with every field resolved and the latency compiled. */
export interface ResolvedLink {
  readonly latency: Quantile;
  readonly dropProbability: number;
  readonly duplicateProbability: number;
  readonly extraDelayMs: number;
  readonly ordered: boolean;
}

export const DEFAULT_LATENCY: DistributionSpec = { kind: 'constant', ms: 0.5 };

/** Merges layers (lowest priority first) and validates the result; `where` names the link in errors. */
export function resolveLink(layers: ReadonlyArray<LinkSpec | undefined>, where: string): ResolvedLink {
  let merged: LinkSpec = {};
  for (const layer of layers) if (layer !== undefined) merged = { ...merged, ...layer };
  const dropProbability = probability(merged.dropProbability ?? 0, `${where}: dropProbability`);
  const duplicateProbability = probability(merged.duplicateProbability ?? 0, `${where}: duplicateProbability`);
  const extraDelayMs = merged.extraDelayMs ?? 0;
  if (!(extraDelayMs >= 0 && Number.isFinite(extraDelayMs))) throw new RangeError(`${where}: extraDelayMs must be a finite number >= 0, got ${extraDelayMs}`);
  return {
    latency: compileDistribution(merged.latency ?? DEFAULT_LATENCY, `${where}: latency`),
    dropProbability,
    duplicateProbability,
    extraDelayMs,
    ordered: merged.ordered ?? false,
  };
}

function probability(value: number, what: string): number {
  if (!(value >= 0 && value <= 1)) throw new RangeError(`${what} must be in [0, 1], got ${value}`);
  return value;
}
