// The version of what the simulator models, saved in every run artifact (scenarios/runner.ts) so a replay
// can say plainly when an artifact was recorded by another model: the same seed and schedule then give
// another run, and a replay must never call that run reproduced (issue 32). Raise it, with a line below,
// whenever a change of the model (not a refactoring) changes what runs do and so their trace hashes.
//
// 1: until issue 32 (artifacts without `simModel`): a message to a crashed process was dropped in silence,
//    so its peers waited for their deadlines; a clock step moved the process's timers.
// 2: issue 32: a crashed process's host answers its peers (connections reset, connects refused,
//    sim/net/kernel-answers.ts); a clock step moves the wall clock only, as libfaketime's does, and a step
//    of the monotonic clock is a fault of its own (sim/process/local-clock.ts).
// 3: issue 32: every process of a cluster network gets its host's answers too (sim/cluster/ports.ts): a
//    member's crash resets its clients' calls, watches and keepalives, a request on the wire when it died
//    included, and its raft peers' streams (the leader probes the dead peer, etcd's MsgUnreachable); a
//    machine that lost power answers nothing (before, a crashed arbiter's host reset even then).
export const SIM_MODEL_VERSION = 3;

/** The model of artifacts that name none: written before the version was saved. */
export const UNVERSIONED_MODEL = 1;
