// The bundled build of `lockstep lock` (issue 30), made by bin/js-build.mjs beside dist/js's file-for-file
// tree. Loading the lock command module by module cost ~0.6 s of CPU before any work: resolving and reading
// ~300 files (grpc-js, protobufjs, the etcd client, zod, yaml) through Node's loaders. esbuild bundles
// src/cli-lock.ts with its dependencies into one CommonJS file per mode (dist/js/src/cli-lock-<mode>.bundle.cjs),
// which bin/compile-cache.mjs runs with V8's code cache (Node 20 has no module compile cache). Each mode's
// file holds only its own stack: the other mode's module (lock.ts's dynamic import of local-arbiter or
// remote-arbiter) is a stub there, so `--arbiter` never reads, hashes or caches the etcd client and
// `--endpoints` never the lock.v1 client; `--arbiter` without class files gets a file without their reader. The files sit in dist/js/src/, and their import.meta.url is that
// of a compiled src/ file there (src/repo-root.ts finds the repository and the fence supervisor's entry from it).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';

/** Modules a bundle may leave out, each replaced by a stub of its exports (lock.ts imports each lazily). */
const STUBS = {
  local: { path: 'src/lock/local-arbiter.ts', exports: ['connectLocal'] },
  remote: { path: 'src/lock/remote-arbiter.ts', exports: ['connectRemote'] },
  // The class-file reader and checker: yaml and zod, 0.46 MB, which `--arbiter` needs only with files.
  policy: { path: 'src/policy-files.ts', exports: ['formatProblem', 'readDocumentFiles', 'refuseUnreadable', 'todayUtc'] },
  check: { path: 'core/classes/check.ts', exports: ['checkDocuments'] },
};

/** Each bundle, what it serves, and the modules it leaves out (the other mode's, or the class files'). */
const MODES = {
  endpoints: { bundle: 'src/cli-lock-endpoints.bundle.cjs', serves: '--endpoints', stubs: [STUBS.remote] },
  arbiter: { bundle: 'src/cli-lock-arbiter.bundle.cjs', serves: '--arbiter with --class or --grants', stubs: [STUBS.local] },
  arbiterBare: { bundle: 'src/cli-lock-arbiter-bare.bundle.cjs', serves: '--arbiter without --class or --grants', stubs: [STUBS.local, STUBS.policy, STUBS.check] },
};

/** In dist/js: each command bundle's modules with code in it (node_modules included), for the tests. */
export const BUNDLE_CONTENTS = 'command-bundles.json';

/** The fence supervisor's entry, bundled (src/lock/supervisor-link.ts starts it from dist/js). */
export const SUPERVISOR_BUNDLE = 'src/lock/fence-supervisor.bundle.cjs';

/**
 * The bundle `lockstep lock <args>` runs, by the options before `--`: --arbiter's (with or without class
 * files), else --endpoints's (which also serves --help and the refusals of bad input, which load no stack).
 */
export function lockBundleFor(args) {
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  const given = (name) => options.some((arg) => arg === name || arg.startsWith(`${name}=`));
  if (!given('--arbiter')) return MODES.endpoints.bundle;
  return given('--class') || given('--grants') ? MODES.arbiter.bundle : MODES.arbiterBare.bundle;
}

// Reached only if lockBundleFor and commander ever read the arguments differently (an option's value that
// is itself "--arbiter", say): a plain error naming the fix, not another stack run half-loaded.
const stubOf = (mode, stub) =>
  stub.exports
    .map((name) => `export function ${name}() { throw new Error(${JSON.stringify(`lockstep lock: this bundle serves ${mode.serves} and holds no ${stub.path} (bin/lock-bundle.mjs lockBundleFor read the arguments otherwise than commander); give --arbiter, --endpoints, --class and --grants before any option whose value starts with --`)}); }`)
    .join('\n');

// A CommonJS file has no import.meta: the modules that read import.meta.url get a compiled src/ file's URL.
const META_URL = "const __lockstepMetaUrl = require('node:url').pathToFileURL(require('node:path').join(__dirname, 'cli-lock.js')).href;";
// The file's text is the script bin/compile-cache.mjs compiles, as it is: one function expression taking
// what a CommonJS module gets. Node's own require would wrap it (a copy of the text); this is read as it is.
export const MODULE_WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})'];

// src/cli.ts's table of every command: a bundle registers its one command alone and never reads the table,
// so it gets a stand-in rather than every command module.
const NO_COMMAND_TABLE = "export function modulesFor() { throw new Error('a command bundle registers its one command alone (src/cli-lock.ts, src/cli-serve.ts)'); }";

// etcd3 parses its rpc.proto (protobufjs's tokenizer and parser, ~0.1 s of CPU under load) at every start.
// The build parses it once, the same way @grpc/proto-loader's loadSync does (its own util, etcd3's options),
// and the bundle hands proto-loader the result as protobufjs JSON (fromJSON: the same root, resolved, and
// the same package definition; JSON.parse, which V8 reads faster than a literal): no .proto is read or
// parsed at run time. The call's text, options included, must be found, so a new etcd3 that loads its
// protos otherwise fails the build.
const ETCD3_LOAD_CALL = "(0, proto_loader_1.loadSync)(`${__dirname}/../proto/rpc.proto`, {\n    keepCase: true,\n    longs: String,\n    enums: String,\n    defaults: true,\n    oneofs: true,\n});";
export const ETCD3_LOAD_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

/** etcd3's rpc.proto (and what it imports) as protobufjs JSON, parsed by the proto-loader etcd3 resolves. */
export async function etcd3ProtoJson(etcd3Lib) {
  const { createRequire } = await import('node:module');
  const fromEtcd3 = createRequire(join(etcd3Lib, 'connection-pool.js'));
  const { loadProtosWithOptionsSync } = fromEtcd3('@grpc/proto-loader/build/src/util.js');
  const root = loadProtosWithOptionsSync(join(etcd3Lib, '..', 'proto', 'rpc.proto'), ETCD3_LOAD_OPTIONS);
  return JSON.stringify(root.toJSON());
}

async function etcd3Replacements(path) {
  const json = await etcd3ProtoJson(dirname(path));
  // The same call, options and all, with the parsed protos for the path.
  const fromJson = ETCD3_LOAD_CALL.replace('(0, proto_loader_1.loadSync)(`${__dirname}/../proto/rpc.proto`', () => `(0, proto_loader_1.fromJSON)(JSON.parse(${JSON.stringify(json)})`);
  return [[ETCD3_LOAD_CALL, fromJson]];
}

// @grpc/proto-loader encodes every message type's descriptor and every file's FileDescriptorProto when it
// loads a .proto, for gRPC server reflection, which nothing in the lock command reads (grpc-js builds its
// clients from the paths and serializers alone): for etcd3's rpc.proto that was ~40% of the lock command's
// start-up CPU. In the bundle they become getters, computed if ever read, with the same values; and
// protobufjs's descriptor extension (which parses descriptor.proto's JSON at load and gives types their
// toDescriptor, ~20 ms under load) is required only then too.
export const LAZY_DESCRIPTORS = [
  [
    'const descriptor = require("protobufjs/ext/descriptor");',
    'let descriptorExt;\nconst loadDescriptorExt = () => (descriptorExt ??= require("protobufjs/ext/descriptor"));\nconst descriptor = { get FileDescriptorProto() { return loadDescriptorExt().FileDescriptorProto; }, get FileDescriptorSet() { return loadDescriptorExt().FileDescriptorSet; } };',
  ],
  [
    "    const messageDescriptor = message.toDescriptor('proto3');\n    return {\n        format: 'Protocol Buffer 3 DescriptorProto',\n        type: messageDescriptor.$type.toObject(messageDescriptor, descriptorOptions),\n        fileDescriptorProtos: fileDescriptors,\n    };",
    "    return {\n        format: 'Protocol Buffer 3 DescriptorProto',\n        get type() { loadDescriptorExt(); const messageDescriptor = message.toDescriptor('proto3'); return messageDescriptor.$type.toObject(messageDescriptor, descriptorOptions); },\n        get fileDescriptorProtos() { return fileDescriptors(); },\n    };",
  ],
  [
    "    const enumDescriptor = enumType.toDescriptor('proto3');\n    return {\n        format: 'Protocol Buffer 3 EnumDescriptorProto',\n        type: enumDescriptor.$type.toObject(enumDescriptor, descriptorOptions),\n        fileDescriptorProtos: fileDescriptors,\n    };",
    "    return {\n        format: 'Protocol Buffer 3 EnumDescriptorProto',\n        get type() { loadDescriptorExt(); const enumDescriptor = enumType.toDescriptor('proto3'); return enumDescriptor.$type.toObject(enumDescriptor, descriptorOptions); },\n        get fileDescriptorProtos() { return fileDescriptors(); },\n    };",
  ],
  [
    "    const descriptorList = root.toDescriptor('proto3').file;\n    const bufferList = descriptorList.map(value => Buffer.from(descriptor.FileDescriptorProto.encode(value).finish()));",
    "    let encoded;\n    const bufferList = () => (encoded ??= (loadDescriptorExt(), root.toDescriptor('proto3')).file.map(value => Buffer.from(descriptor.FileDescriptorProto.encode(value).finish())));",
  ],
];

/** `path`'s text with each [text, replacement] applied; throws naming the file when a text is not there. */
export async function rewrite(path, replacements) {
  const { readFile } = await import('node:fs/promises');
  let contents = await readFile(path, 'utf8');
  for (const [text, replacement] of replacements) {
    if (!contents.includes(text)) throw new Error(`${path}: ${JSON.stringify(text.slice(0, 60))}... is not there: the package changed; update bin/lock-bundle.mjs`);
    contents = contents.replace(text, replacement);
  }
  return { contents, loader: 'js' };
}

/**
 * Rewrites `file` with every non-ASCII character as a \u escape. esbuild escapes them in strings, regular
 * expressions and names (its ASCII charset) but keeps comments as written, and one character outside ASCII
 * makes Node decode the whole file slowly into two-byte text, which V8 then hashes and parses as such: the
 * serve bundle (3 MB, two comments with a dash or a sign) started 9% less CPU and 17% less wall ASCII-only
 * (servestart, 10 runs interleaved at load 11). In a comment an escape means the same to the reader.
 */
async function asciiOnly(file) {
  const text = await readFile(file, 'utf8');
  const ascii = text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) await writeFile(file, ascii);
}

/** esbuild plugins: what `mode`'s bundle must not take as it is. */
function plugins(mode) {
  return [
    {
      name: 'lockstep-command-bundle',
      setup(build) {
        build.onEnd(async (result) => (result.errors.length === 0 && build.initialOptions.outfile !== undefined ? asciiOnly(build.initialOptions.outfile) : undefined));
        build.onLoad({ filter: /[/\\]src[/\\]command-table\.ts$/ }, () => ({ contents: NO_COMMAND_TABLE, loader: 'js' }));
        for (const stub of mode.stubs) {
          const filter = new RegExp(`[/\\\\]${stub.path.replaceAll('/', '[/\\\\]').replace('.', '\\.')}$`);
          build.onLoad({ filter }, () => ({ contents: stubOf(mode, stub), loader: 'js' }));
        }
        build.onLoad({ filter: /etcd3[/\\]lib[/\\]connection-pool\.js$/ }, async (args) => rewrite(args.path, await etcd3Replacements(args.path)));
        build.onLoad({ filter: /@grpc[/\\]proto-loader[/\\]build[/\\]src[/\\]index\.js$/ }, (args) =>
          // grpc-js's own copy serves only channelz, which the lock command does not start: left as it is.
          args.path.includes(`grpc-js${sep}node_modules`) ? undefined : rewrite(args.path, LAZY_DESCRIPTORS),
        );
      },
    },
  ];
}

/** Throws, naming the file, if a byte of `file` is not ASCII (bin/compile-cache.mjs reads it as latin1): asciiOnly's invariant. */
export function assertAscii(file) {
  const at = readFileSync(file).findIndex((byte) => byte > 0x7f);
  if (at !== -1) throw new Error(`${file}: byte ${at} is not ASCII; bin/compile-cache.mjs reads the command bundles as latin1, and the build's asciiOnly step should have escaped it: a programmer error in bin/lock-bundle.mjs`);
}

/**
 * Adds each bundle's modules (those with code in it, node_modules included) to `outDir`'s
 * BUNDLE_CONTENTS, for the tests: a minified bundle no longer heads each module with its path. Synchronous,
 * so the lock's and serve's builds, finishing in one process, never write over each other.
 */
export function recordContents(outDir, metafiles) {
  const file = join(outDir, BUNDLE_CONTENTS);
  const known = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  // The output's inputs that put bytes in it: esbuild reads modules it then drops (zod's locales, unused).
  const kept = (metafile) => Object.values(metafile.outputs).flatMap((output) => Object.entries(output.inputs).filter(([, use]) => use.bytesInOutput > 0).map(([path]) => path));
  const added = Object.fromEntries(Object.entries(metafiles).map(([bundle, metafile]) => [bundle, [...new Set(kept(metafile))].sort()]));
  writeFileSync(file, `${JSON.stringify({ ...known, ...added })}\n`);
}

/** The repository's own files (not node_modules) among an esbuild metafile's inputs, relative to `root`. */
export const ownInputs = (metafile) => Object.keys(metafile.inputs).filter((path) => !path.includes('node_modules/'));

const COMMON = { bundle: true, platform: 'node', target: 'node20', metafile: true, logLevel: 'warning' };

/**
 * esbuild's options for one command bundle (a mode: its `bundle` path under `outDir`, what it `serves`, the
 * `stubs` it leaves out, and `external` packages, required at run time): the source `entry` (relative to
 * `root`) with its dependencies in one CommonJS file, with this file's stand-ins and package rewrites. The
 * lock's bundles and the serve's (bin/serve-bundle.mjs) are built by this one rule.
 */
export function bundleOptions(root, outDir, entry, mode) {
  return {
    ...COMMON,
    absWorkingDir: root,
    entryPoints: [join(root, entry)],
    outfile: join(outDir, mode.bundle),
    format: 'cjs',
    define: { 'import.meta.url': '__lockstepMetaUrl' },
    banner: { js: `${MODULE_WRAPPER[0]}${META_URL}` },
    footer: { js: MODULE_WRAPPER[1] },
    // No comments or indentation (2.12 -> 1.38 MB for lock --endpoints): less to read, and ASCII, which
    // bin/compile-cache.mjs reads as one byte per character. Names are kept, so a stack trace still
    // names its functions (Node 20 applies no source map to a vm.Script: none is written).
    minifyWhitespace: true,
    external: mode.external ?? [],
    plugins: plugins(mode),
  };
}

/**
 * Bundles `lockstep lock` from the sources under `root` into `outDir` (dist/js or its temporary twin), one
 * file per mode, and the fence supervisor into one file of its own. Returns the sources the lock command
 * runs from (relative to `root`): every bundle's own inputs. bin/js-build.mjs checks only these before a lock, so a lock never runs a stale build (issue 30).
 */
export async function buildLockBundle(root, outDir) {
  const { build } = await import('esbuild');
  const bundles = Object.values(MODES).map((mode) => build(bundleOptions(root, outDir, 'src/cli-lock.ts', mode)).then((result) => (assertAscii(join(outDir, mode.bundle)), result)));
  // The fence supervisor, a process of its own at every lock: one small CommonJS file (~7 KB) that requires
  // only Node's own modules, so its start reads no ESM graph of dist/js files (~20 ms of CPU under load).
  const supervisor = build({ ...COMMON, absWorkingDir: root, entryPoints: [join(root, 'src', 'lock', 'fence-supervisor-main.ts')], format: 'cjs', outfile: join(outDir, SUPERVISOR_BUNDLE) });
  const results = await Promise.all([...bundles, supervisor]);
  recordContents(outDir, Object.fromEntries(Object.values(MODES).map((mode, i) => [mode.bundle, results[i].metafile])));
  const inputs = new Set(results.flatMap((result) => ownInputs(result.metafile)));
  return [...inputs].sort();
}
