// bin/lock-bundle.mjs: in the lock bundle, etcd3 gets from the protobufjs JSON made at build time the same
// gRPC package definition that parsing its rpc.proto gives (issue 30), and a package text the build expects
// but does not find fails the build rather than bundling the package unpatched.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ETCD3_LOAD_OPTIONS, LAZY_DESCRIPTORS, assertAscii, etcd3ProtoJson, rewrite } from '../../bin/lock-bundle.mjs';

interface MethodDefinition {
  readonly path: string;
  requestSerialize(value: unknown): Buffer;
  responseSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
}
type PackageDefinition = Record<string, Record<string, MethodDefinition> | undefined>;
interface Descriptor {
  readonly type: unknown;
  readonly fileDescriptorProtos: readonly Buffer[];
}
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

describe("the bundle's proto-loader", () => {
  it('gives the same reflection descriptors, computed when read, as the package as published', async () => {
    const path = createRequire(join(etcd3Lib, 'connection-pool.js')).resolve('@grpc/proto-loader');
    const { contents } = await rewrite(path, LAZY_DESCRIPTORS);
    const patchedFile = join(dir, 'proto-loader.patched.js');
    const jsonFile = join(dir, 'etcd3-protos.json');
    writeFileSync(patchedFile, contents);
    writeFileSync(jsonFile, await etcd3ProtoJson(etcd3Lib));
    // In a process of its own, where nothing loaded protobufjs's descriptor extension first, the patched
    // text runs as the package's own file (its requires resolve as in the bundle) and reads the descriptors.
    const probe = `const { Module } = require('node:module'); const fs = require('node:fs'); const m = new Module(${JSON.stringify(path)}); m.filename = ${JSON.stringify(path)};
      m.paths = Module._nodeModulePaths(${JSON.stringify(dirname(path))}); m._compile(fs.readFileSync(${JSON.stringify(patchedFile)}, 'utf8'), ${JSON.stringify(path)});
      const loaded = m.exports.fromJSON(JSON.parse(fs.readFileSync(${JSON.stringify(jsonFile)}, 'utf8')), ${JSON.stringify({ keepCase: true, defaults: true, oneofs: true })});
      const read = (name) => ({ type: loaded[name].type, files: loaded[name].fileDescriptorProtos.map((b) => b.toString('base64')) });
      process.stdout.write(JSON.stringify({ message: read('etcdserverpb.RangeRequest'), enum: read('etcdserverpb.AlarmType') }));`;
    const run = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const lazy = JSON.parse(run.stdout) as Record<'message' | 'enum', { type: unknown; files: string[] }>;
    const eager = protoLoader.fromJSON(JSON.parse(readFileSync(jsonFile, 'utf8')), { keepCase: true, defaults: true, oneofs: true }) as unknown as Record<string, Descriptor>;
    for (const [kind, name] of [['message', 'etcdserverpb.RangeRequest'], ['enum', 'etcdserverpb.AlarmType']] as const) {
      expect(lazy[kind].type).toBeDefined();
      expect(lazy[kind].type).toEqual(JSON.parse(JSON.stringify(eager[name]?.type)));
      expect(lazy[kind].files).toEqual(eager[name]?.fileDescriptorProtos.map((b) => b.toString('base64')));
    }
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

describe('assertAscii', () => {
  it('passes an ASCII bundle and fails, naming the file, on a non-ASCII byte (which latin1 would misread)', () => {
    const ascii = join(dir, 'ascii.cjs');
    writeFileSync(ascii, 'exports.s = "\\u00e9";\n');
    expect(() => assertAscii(ascii)).not.toThrow();
    const other = join(dir, 'other.cjs');
    writeFileSync(other, '// ±0\nexports.s = 1;\n');
    expect(() => assertAscii(other)).toThrow(`${other}: byte 3 is not ASCII`);
  });
});
