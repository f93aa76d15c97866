-- lockstep's reference fence for PostgreSQL (ADR-16, ADR-17). Copy it; `lockstep pause-test
-- --postgres URL --table lockstep_fenced` proves it on your staging database (docs/fences/README.md).
--
-- The record carries its own high-water mark: the highest fencing token that has written it. A mark
-- per record, not per table: two keys never share one.
CREATE TABLE IF NOT EXISTS lockstep_fenced (
  id    text   PRIMARY KEY,           -- the record the lock key guards
  fence bigint NOT NULL DEFAULT 0,    -- tokens are epoch * 2^48 + revision, below 2^63, above 0 (ADR-02)
  value text                          -- stands for your data columns
);

-- Once per record, before any holder writes it ($1: the record's id).
INSERT INTO lockstep_fenced (id) VALUES ($1) ON CONFLICT (id) DO NOTHING;

-- The guarded write. ONE statement: the check and the write together, so no pause can fall between them
-- ($1: id, $2: the token from LOCKSTEP_TOKEN, as text, $3: the new value). One row updated: accepted.
-- No row: refused, because a holder with a token at or above this one has written the record; stop
-- working, the lock is gone.
UPDATE lockstep_fenced SET value = $3, fence = $2 WHERE id = $1 AND fence < $2;

-- `fence < $2` is ADR-16's strict clause: one write per record per grant (a second write with the same
-- token is refused), and a token minted twice (a restore the seal cannot see) lets only one holder in.
-- If one grant must update the record again and again, use `fence <= $2` instead, and say so in the
-- class pull request; run the kit with --fence-mode at-or-above.
--
-- Your own table: add the column (ALTER TABLE t ADD COLUMN fence bigint NOT NULL DEFAULT 0) and put
-- `fence = $token` and `AND fence < $token` into the UPDATE that writes. Do not read the fence in one
-- statement and write in another (ADR-17's classic mistake): the kit fails that at its "between" point.

-- Reading the record back (what the kit does to judge a trial).
SELECT fence::text AS fence, value FROM lockstep_fenced WHERE id = $1;
