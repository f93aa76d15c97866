// The standard gRPC server reflection service, grpc.reflection.v1 and its older twin v1alpha (issue 29), so
// stock tools (grpcurl, grpcui, Postman) can list what `lockstep serve` serves and describe its messages
// without the proto files. No well-kept reflection package exists for Connect-ES (checked npm: the ones
// there are for @grpc/grpc-js), and the service is small: answers come from the descriptors the generated
// code already embeds. Extensions are not used by lockstep's protos, so those two questions answer empty.
import { type DescFile, type DescService, type FileRegistry, create, createFileRegistry, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { Code, type ServiceImpl } from '@connectrpc/connect';
import * as v1 from '../gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../gen/grpc/reflection/v1alpha/reflection_pb.js';

type Request = v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest;
/** One answer, without the fields each version fills in the same way. */
type Answer =
  | { case: 'listServicesResponse'; value: { service: { name: string }[] } }
  | { case: 'fileDescriptorResponse'; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: 'allExtensionNumbersResponse'; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: 'errorResponse'; value: { errorCode: number; errorMessage: string } };

/** A request's text is the caller's: bounded before it is echoed in an error. */
const MAX_ECHO = 200;

/** Both reflection services for `services` (the reflection services themselves are listed too). */
export function reflectionServices(services: readonly DescService[]): { v1: ServiceImpl<typeof v1.ServerReflection>; v1alpha: ServiceImpl<typeof v1alpha.ServerReflection> } {
  const all = [...services, v1.ServerReflection, v1alpha.ServerReflection];
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: withDependencies(all.map((s) => s.file)).map((f) => f.proto) }));
  const names = all.map((s) => s.typeName);
  return {
    v1: {
      async *serverReflectionInfo(requests) {
        for await (const request of requests) yield { validHost: request.host, originalRequest: request, messageResponse: answer(request, registry, names) };
      },
    },
    v1alpha: {
      async *serverReflectionInfo(requests) {
        for await (const request of requests) yield { validHost: request.host, originalRequest: request, messageResponse: answer(request, registry, names) };
      },
    },
  };
}

function answer(request: Request, registry: FileRegistry, names: readonly string[]): Answer {
  const asked = request.messageRequest;
  switch (asked.case) {
    case 'listServices':
      return { case: 'listServicesResponse', value: { service: names.map((name) => ({ name })) } };
    case 'fileByFilename':
      return files(registry.getFile(asked.value), asked.value);
    case 'fileContainingSymbol':
      return files(fileOfSymbol(registry, asked.value), asked.value);
    case 'fileContainingExtension':
      return notFound(`no extension ${asked.value.extensionNumber} of ${asked.value.containingType.slice(0, MAX_ECHO)}`);
    case 'allExtensionNumbersOfType':
      return registry.getMessage(asked.value) === undefined ? notFound(`no message ${asked.value.slice(0, MAX_ECHO)}`) : { case: 'allExtensionNumbersResponse', value: { baseTypeName: asked.value, extensionNumber: [] } };
    default:
      return { case: 'errorResponse', value: { errorCode: Code.InvalidArgument, errorMessage: 'the request names no question' } };
  }
}

/** The file declaring `symbol`: a service, message or enum, or a method or field of one. */
function fileOfSymbol(registry: FileRegistry, symbol: string): DescFile | undefined {
  const found = registry.get(symbol);
  if (found !== undefined) return found.file;
  const parent = symbol.slice(0, Math.max(0, symbol.lastIndexOf('.')));
  const owner = parent === '' ? undefined : registry.get(parent);
  return owner?.kind === 'service' || owner?.kind === 'message' ? owner.file : undefined;
}

/** The file and every file it imports, the file first: what a client needs to decode it. */
function files(file: DescFile | undefined, asked: string): Answer {
  if (file === undefined) return notFound(`no file or symbol ${asked.slice(0, MAX_ECHO)}`);
  return { case: 'fileDescriptorResponse', value: { fileDescriptorProto: withDependencies([file]).map((f) => toBinary(FileDescriptorProtoSchema, f.proto)) } };
}

function withDependencies(roots: readonly DescFile[]): DescFile[] {
  const seen = new Map<string, DescFile>();
  const visit = (file: DescFile): void => {
    if (seen.has(file.name)) return;
    seen.set(file.name, file);
    for (const dependency of file.dependencies) visit(dependency);
  };
  for (const root of roots) visit(root);
  return [...seen.values()];
}

function notFound(message: string): Answer {
  return { case: 'errorResponse', value: { errorCode: Code.NotFound, errorMessage: message } };
}
