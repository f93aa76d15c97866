// Server reflection on the real server (issue 29): over h2c on loopback, as grpcurl would ask it, through
// both versions: the service list, the file declaring a service (with its imports), a method's file, and a
// symbol that does not exist (the negative control: an error, not an empty answer).
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArbiterService } from '../../core/ports/caller.js';
import * as v1 from '../gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../gen/grpc/reflection/v1alpha/reflection_pb.js';
import { type ArbiterServer, startArbiterServer } from './server.js';

let server: ArbiterServer;

beforeAll(async () => {
  // Reflection never calls the arbiter.
  server = await startArbiterServer({ arbiter: {} as ArbiterService, host: '127.0.0.1', port: 0, onUnexpected: (error) => { throw error; } });
});

afterAll(async () => {
  await server.drain(100);
});

async function ask(version: typeof v1 | typeof v1alpha, messageRequest: v1.ServerReflectionRequest['messageRequest']): Promise<v1.ServerReflectionResponse['messageResponse']> {
  const client = createClient(version.ServerReflection as typeof v1.ServerReflection, createGrpcTransport({ baseUrl: `http://127.0.0.1:${server.port}` }));
  async function* one(): AsyncIterable<{ messageRequest: typeof messageRequest }> {
    yield { messageRequest };
  }
  for await (const response of client.serverReflectionInfo(one())) return response.messageResponse;
  throw new Error('no answer');
}

describe('grpc.reflection on lockstep serve', () => {
  for (const [name, version] of [['v1', v1], ['v1alpha', v1alpha]] as const) {
    it(`${name} lists the services`, async () => {
      const answer = await ask(version, { case: 'listServices', value: '' });
      expect(answer.case).toBe('listServicesResponse');
      const names = answer.case === 'listServicesResponse' ? answer.value.service.map((s) => s.name) : [];
      expect(names).toEqual(['lockstep.lock.v1.LockService', 'lockstep.admin.v1.AdminService', 'grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection']);
    });
  }

  it('gives the file that declares a service, with the files it imports', async () => {
    const answer = await ask(v1, { case: 'fileContainingSymbol', value: 'lockstep.admin.v1.AdminService' });
    const files = answer.case === 'fileDescriptorResponse' ? answer.value.fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes)) : [];
    expect(files.map((f) => f.name)).toEqual(['lockstep/admin/v1/admin.proto', 'lockstep/lock/v1/lock.proto']);
    expect(files[0]?.service[0]?.method.map((m) => m.name)).toContain('RequestForceRelease');
  });

  it('finds a method\'s file, and answers NOT_FOUND for a symbol that does not exist', async () => {
    const method = await ask(v1alpha, { case: 'fileContainingSymbol', value: 'lockstep.lock.v1.LockService.Acquire' });
    expect(method.case === 'fileDescriptorResponse' && fromBinary(FileDescriptorProtoSchema, method.value.fileDescriptorProto[0] as Uint8Array).name).toBe('lockstep/lock/v1/lock.proto');
    const missing = await ask(v1, { case: 'fileContainingSymbol', value: 'lockstep.lock.v1.NoSuchService' });
    expect(missing).toMatchObject({ case: 'errorResponse', value: { errorCode: 5 } });
  });
});
