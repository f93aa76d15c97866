// What one `lockstep explore` run reports about itself (its `--json` line, and the file `--summary` writes):
// enough for `lockstep explore merge` to tell which seeds a shard covered, whether it covered them all, and
// what failed. A Kubernetes Indexed Job runs one explore per pod with `--shard i/n --summary ...`, and the
// merge combines the shards' files into one report (deploy/explore-job.yaml).
import { z } from 'zod';
import { parseShard } from '../../scenarios/explore.js';

/** The format's name and version; a file without it is not a summary (or one from an older lockstep). */
export const SUMMARY_FORMAT = 'lockstep-explore-summary/1';

const failureSchema = z.object({
  seed: z.string().regex(/^\d+$/),
  scenario: z.string(),
  check: z.string(),
  artifact: z.string(),
  replay: z.string(),
});

export const summarySchema = z.object({
  format: z.literal(SUMMARY_FORMAT),
  scenario: z.string(),
  variant: z.string(),
  mutant: z.string().nullable(),
  seeds: z.object({
    first: z.number().int().nonnegative(),
    /** Runs in all shards together. */
    runs: z.number().int().positive(),
    /** `i/n`, by explore's own rule (0 <= i < n). */
    shard: z.string().refine((text) => {
      try {
        parseShard(text);
        return true;
      } catch {
        return false;
      }
    }, 'is not i/n with 0 <= i < n'),
  }),
  /** Runs this shard completed. */
  runs: z.number().int().nonnegative(),
  /** Runs this shard was given; fewer completed means it stopped at its first failure (no --keep-going). */
  runsPlanned: z.number().int().nonnegative(),
  failures: z.array(failureSchema),
  runsToFirstFailure: z.number().int().positive().nullable(),
  workers: z.number().int().positive(),
  wallMs: z.number().nonnegative(),
});

export type ExploreSummary = z.infer<typeof summarySchema>;
export type SummaryFailure = z.infer<typeof failureSchema>;
