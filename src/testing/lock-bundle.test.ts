// bin/lock-bundle.mjs: in the lock bundle, etcd3 gets from the protobufjs JSON made at build time the same
// gRPC package definition that parsing its rpc.proto gives (issue 30), and a package text the build expects
// but does not find fails the build rather than bundling the package unpatched.
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ETCD3_LOAD_OPTIONS, etcd3ProtoJson, rewrite } from '../../bin/lock-bundle.mjs';

interface MethodDefinition {
  readonly path: string;
  requestSerialize(value: unknown): Buffer;
  responseSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
}
type PackageDefinition = Record<string, Record<string, MethodDefinition> | undefined>;
interface ProtoLoader {
  loadSync(path: string, options: unknown): PackageDefinition;
  fromJSON(json: unknown, options: unknown): PackageDefinition;
}

const etcd3Lib = dirname(createRequire(import.meta.url).resolve('etcd3'));
const protoLoader = createRequire(join(etcd3Lib, 'connection-pool.js'))('@grpc/proto-loader') as ProtoLoader;

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lockstep-lock-bundle-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe("the lock bundle's etcd3 protos", () => {
  it('give the package definition that parsing rpc.proto gives: the same services and methods, the same bytes', async () => {
    const parsed = protoLoader.loadSync(join(etcd3Lib, '..', 'proto', 'rpc.proto'), ETCD3_LOAD_OPTIONS);
    const prebuilt = protoLoader.fromJSON(JSON.parse(await etcd3ProtoJson(etcd3Lib)), ETCD3_LOAD_OPTIONS);
    expect(Object.keys(prebuilt).sort()).toEqual(Object.keys(parsed).sort());
    const [range, fromJson] = [parsed['etcdserverpb.KV']?.Range, prebuilt['etcdserverpb.KV']?.Range];
    expect(fromJson?.path).toBe('/etcdserverpb.KV/Range');
    expect(fromJson?.path).toBe(range?.path);
    const request = { key: Buffer.from('lockstep/a'), range_end: Buffer.from('lockstep/b'), limit: '5', serializable: true };
    expect(fromJson?.requestSerialize(request)).toEqual(range?.requestSerialize(request));
    const response = range?.responseSerialize({ header: { revision: '42' }, kvs: [{ key: Buffer.from('k'), value: Buffer.from('v'), lease: '7' }], count: '1' });
    expect(response?.length).toBeGreaterThan(0);
    const decoded = fromJson?.responseDeserialize(response ?? Buffer.alloc(0));
    expect(decoded).toEqual(range?.responseDeserialize(response ?? Buffer.alloc(0)));
    expect(decoded).toMatchObject({ header: { revision: '42' }, count: '1' });
  });
});

describe('rewrite', () => {
  it('replaces each expected text, and fails naming the file when one is not there (a new version of the package)', async () => {
    const file = join(dir, 'package.js');
    writeFileSync(file, 'const a = load(`rpc.proto`);\n');
    expect((await rewrite(file, [['load(`rpc.proto`)', 'fromJSON({})']])).contents).toBe('const a = fromJSON({});\n');
    await expect(rewrite(file, [['loadSync(`rpc.proto`)', 'fromJSON({})']])).rejects.toThrow(`${file}: "loadSync(\`rpc.proto\`)"... is not there: the package changed`);
  });
});
