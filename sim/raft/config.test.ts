import { describe, expect, it } from 'vitest';
import { ETCD_3_4_RAFT_CONFIG, ETCD_3_5_RAFT_CONFIG, raftConfig } from './config.js';
import { describeMessage } from './message.js';

describe('RaftConfig', () => {
  it("defaults to etcd 3.4.23's values; 3.5 differs only in PreVote", () => {
    expect(raftConfig()).toEqual({
      tickMs: 100, electionTicks: 10, heartbeatTicks: 1, preVote: false, checkQuorum: true,
      maxSizePerMsgBytes: 1024 * 1024, maxInflightMsgs: 512, initialElectionTickAdvance: true,
    });
    expect(ETCD_3_5_RAFT_CONFIG).toEqual({ ...ETCD_3_4_RAFT_CONFIG, preVote: true });
  });

  it('names the field and the rule when a value is bad', () => {
    expect(() => raftConfig({ tickMs: 0 })).toThrow(/RaftConfig.tickMs must be a positive number/);
    expect(() => raftConfig({ electionTicks: 1 })).toThrow(/electionTicks \(1\) must be greater than heartbeatTicks/);
    expect(() => raftConfig({ maxInflightMsgs: 1.5 })).toThrow(/maxInflightMsgs must be a positive integer/);
  });

  it('messages are described for the trace without their data', () => {
    expect(describeMessage({ type: 'MsgApp', from: 'a', to: 'b', term: 2, index: 4, logTerm: 2, entries: [], commit: 4 }))
      .toEqual({ type: 'MsgApp', to: 'b', term: 2, index: 4, entries: 0, commit: 4 });
    expect(describeMessage({ type: 'MsgAppResp', from: 'b', to: 'a', term: 2, index: 4, reject: true, rejectHint: 3 }))
      .toEqual({ type: 'MsgAppResp', to: 'a', term: 2, index: 4, reject: 3 });
  });
});
