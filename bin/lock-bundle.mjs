// The bundled build of `lockstep lock` (issue 30), made by bin/js-build.mjs beside dist/js's file-for-file
// tree. Loading the lock command module by module cost ~0.6 s of CPU before any work: resolving and reading
// ~300 files (grpc-js, protobufjs, the etcd client, zod, yaml) through Node's loaders. esbuild bundles
// src/cli-lock.ts with its dependencies into dist/js/src/cli-lock.bundle.js, and what only one mode needs
// (lock.ts's dynamic imports: the etcd stack, the lock.v1 client, the class-file reader) into chunks beside
// it, loaded when that mode runs. Every file sits directly in dist/js/src/, so import.meta.url points where
// a compiled src/ file's would (src/repo-root.ts, the fence supervisor's entry in dist/js).
import { join, sep } from 'node:path';

export const LOCK_BUNDLE = 'src/cli-lock.bundle.js';

// CommonJS packages in an ES module bundle call require() for Node's built-ins: give them one.
const BANNER = "import { createRequire as __lockstepCreateRequire } from 'node:module'; const require = __lockstepCreateRequire(import.meta.url);";

/** [text in the package, its replacement]: each must be found, or the build fails naming the package. */
const ETCD3_PROTO_PATH = [['`${__dirname}/../proto/rpc.proto`', "require.resolve('etcd3/proto/rpc.proto')"]];

// @grpc/proto-loader encodes every message type's descriptor and every file's FileDescriptorProto when it
// loads a .proto, for gRPC server reflection, which nothing in the lock command reads (grpc-js builds its
// clients from the paths and serializers alone): for etcd3's rpc.proto that was ~40% of the lock command's
// start-up CPU. In the bundle they become getters, computed if ever read, with the same values.
const LAZY_DESCRIPTORS = [
  [
    "    const messageDescriptor = message.toDescriptor('proto3');\n    return {\n        format: 'Protocol Buffer 3 DescriptorProto',\n        type: messageDescriptor.$type.toObject(messageDescriptor, descriptorOptions),\n        fileDescriptorProtos: fileDescriptors,\n    };",
    "    return {\n        format: 'Protocol Buffer 3 DescriptorProto',\n        get type() { const messageDescriptor = message.toDescriptor('proto3'); return messageDescriptor.$type.toObject(messageDescriptor, descriptorOptions); },\n        get fileDescriptorProtos() { return fileDescriptors(); },\n    };",
  ],
  [
    "    const enumDescriptor = enumType.toDescriptor('proto3');\n    return {\n        format: 'Protocol Buffer 3 EnumDescriptorProto',\n        type: enumDescriptor.$type.toObject(enumDescriptor, descriptorOptions),\n        fileDescriptorProtos: fileDescriptors,\n    };",
    "    return {\n        format: 'Protocol Buffer 3 EnumDescriptorProto',\n        get type() { const enumDescriptor = enumType.toDescriptor('proto3'); return enumDescriptor.$type.toObject(enumDescriptor, descriptorOptions); },\n        get fileDescriptorProtos() { return fileDescriptors(); },\n    };",
  ],
  [
    "    const descriptorList = root.toDescriptor('proto3').file;\n    const bufferList = descriptorList.map(value => Buffer.from(descriptor.FileDescriptorProto.encode(value).finish()));",
    "    let encoded;\n    const bufferList = () => (encoded ??= root.toDescriptor('proto3').file.map(value => Buffer.from(descriptor.FileDescriptorProto.encode(value).finish())));",
  ],
];

async function rewrite(path, replacements) {
  const { readFile } = await import('node:fs/promises');
  let contents = await readFile(path, 'utf8');
  for (const [text, replacement] of replacements) {
    if (!contents.includes(text)) throw new Error(`${path}: ${JSON.stringify(text.slice(0, 60))}... is not there: the package changed; update bin/lock-bundle.mjs`);
    contents = contents.replace(text, replacement);
  }
  return { contents, loader: 'js' };
}

/** esbuild plugins: what must stay as it is on disk. */
function plugins() {
  return [
    {
      name: 'lockstep-lock-bundle',
      setup(build) {
        // src/cli.ts's table of every command: the bundle registers lock alone and never reads the table, so
        // it stays the compiled file beside the bundle rather than pulling every command into the bundle.
        build.onResolve({ filter: /\/command-table\.js$/ }, () => ({ path: './command-table.js', external: true }));
        // etcd3 reads its .proto from its own folder, which a bundle leaves: point it there by resolution.
        build.onLoad({ filter: /etcd3[/\\]lib[/\\]connection-pool\.js$/ }, (args) => rewrite(args.path, ETCD3_PROTO_PATH));
        build.onLoad({ filter: /@grpc[/\\]proto-loader[/\\]build[/\\]src[/\\]index\.js$/ }, (args) =>
          // grpc-js's own copy serves only channelz, which the lock command does not start: left as it is.
          args.path.includes(`grpc-js${sep}node_modules`) ? undefined : rewrite(args.path, LAZY_DESCRIPTORS),
        );
      },
    },
  ];
}

/** Bundles `lockstep lock` from the sources under `root` into `outDir` (dist/js or its temporary twin). */
export async function buildLockBundle(root, outDir) {
  const { build } = await import('esbuild');
  await build({
    entryPoints: { 'cli-lock.bundle': join(root, 'src', 'cli-lock.ts') },
    outdir: join(outDir, 'src'),
    chunkNames: 'cli-lock.bundle.[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: BANNER },
    plugins: plugins(),
    logLevel: 'warning',
  });
}
