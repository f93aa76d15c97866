// A bench report or hardware profile given to a planner (`ttl --bench`, `shards --from-bench`), read
// through the one reader of input files; core/planner/measured-bench.ts parses what it holds.
import { type InputKind, MIB } from './read-input.js';

export const BENCH_FILE: InputKind = { what: 'the file lockstep bench --json, --out or --profile wrote', maxBytes: 16 * MIB };
