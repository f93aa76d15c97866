// The bundled build of `lockstep lock` (issue 30), made by bin/js-build.mjs beside dist/js's file-for-file
// tree. Loading the lock command module by module cost ~0.6 s of CPU before any work: resolving and reading
// ~300 files (grpc-js, protobufjs, the etcd client, zod, yaml) through Node's loaders. esbuild bundles
// src/cli-lock.ts with its dependencies into one CommonJS file, dist/js/src/cli-lock.bundle.cjs, which
// bin/compile-cache.mjs runs with V8's code cache (Node 20 has no module compile cache). What only one mode
// needs (lock.ts's dynamic imports: the etcd stack, the lock.v1 client, the class-file reader) is in the file
// but runs only when imported. The file sits in dist/js/src/, and its import.meta.url is that of a compiled
// src/ file there (src/repo-root.ts finds the repository and the fence supervisor's entry from it).
import { join, sep } from 'node:path';

export const LOCK_BUNDLE = 'src/cli-lock.bundle.cjs';

// A CommonJS file has no import.meta: the modules that read import.meta.url get a compiled src/ file's URL.
const BANNER = "const __lockstepMetaUrl = require('node:url').pathToFileURL(require('node:path').join(__dirname, 'cli-lock.js')).href;";

// src/cli.ts's table of every command: the bundle registers lock alone and never reads the table, so it gets
// a stand-in rather than every command module.
const NO_COMMAND_TABLE = "export function modulesFor() { throw new Error('the lock bundle registers the lock command alone (src/cli-lock.ts)'); }";

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

/** esbuild plugins: what the bundle must not take as it is. */
function plugins() {
  return [
    {
      name: 'lockstep-lock-bundle',
      setup(build) {
        build.onLoad({ filter: /[/\\]src[/\\]command-table\.ts$/ }, () => ({ contents: NO_COMMAND_TABLE, loader: 'js' }));
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
    entryPoints: [join(root, 'src', 'cli-lock.ts')],
    outfile: join(outDir, LOCK_BUNDLE),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    define: { 'import.meta.url': '__lockstepMetaUrl' },
    banner: { js: BANNER },
    // Resolved at run time, next to etcd3 in node_modules (the bundle reads no .proto of its own).
    external: ['etcd3/proto/rpc.proto'],
    plugins: plugins(),
    logLevel: 'warning',
  });
}
