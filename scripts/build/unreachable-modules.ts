/**
 * Modules of bundled CommonJS packages that the function can never reach, replaced by empty ones
 * in the bundle (issue 13: the bundle ≤ 700 KB; docs/architecture.md §4.2). esbuild cannot drop
 * them itself: CommonJS `require`s at a module's top are kept whole, used or not. Each entry says
 * why nothing the adapter calls gets there; the FC bundle test drives the driver's five OSS
 * operations through the bundled client against the OSS emulator (test/fc/bundle.test.ts), and the
 * FC-local tests run whole turns on OSS through the real bundle.
 *
 * The adapter's OSS client (lib/adapters/oss-store/objects.ts) calls exactly `put`, `get`,
 * `listV2`, `delete` and `deleteMulti` of ali-oss 6.23, on a Client it builds itself.
 */
import { posix } from 'node:path';
import type { Plugin } from 'esbuild';

interface Unreachable {
  /** The `require` path as written in the requiring file. */
  path: string;
  /** The requiring file, relative to node_modules (any, when unset). */
  from?: string;
  /** The stand-in's `module.exports`; default an empty object. */
  exports?: string;
  why: string;
}

const ALI_OSS_CLIENT = 'ali-oss/lib/client.js';
const ALI_OSS_OBJECT_OPERATIONS = 'ali-oss/lib/common/object/index.js';

/** What `ali-oss/lib/common/object` merges into the Client but the driver never calls (it uses ./get, ./delete, ./deleteMulti). */
const UNUSED_OBJECT_OPERATIONS = [
  './getSymlink',
  './putSymlink',
  './getObjectMeta',
  './copyObject',
  './calculatePostSignature',
  './getObjectTagging',
  './putObjectTagging',
  './deleteObjectTagging',
  './getBucketVersions',
  './getACL',
  './putACL',
  './head',
  './postAsyncFetch',
  './getAsyncFetch',
  './generateObjectUrl',
  './getObjectUrl',
  './signatureUrl',
  './asyncSignatureUrl',
  './signatureUrlV4',
  './signPostObjectPolicyV4',
];

export const UNREACHABLE_MODULES: readonly Unreachable[] = [
  // ali-oss's Client mixes every API family into its prototype; the driver uses object operations only.
  ...['./common/image', './common/bucket', './bucket', './managed-upload', './rtmp', './common/multipart-copy', './common/parallel', './common/multipart', './sts'].map(
    (path): Unreachable => ({ path, from: ALI_OSS_CLIENT, why: 'an ali-oss API family the driver never calls (images, buckets, multipart, RTMP, STS)' }),
  ),
  ...['./image', './cluster'].map(
    (path): Unreachable => ({
      path,
      from: ALI_OSS_CLIENT,
      exports: '() => undefined',
      why: 'ImageClient / ClusterClient factories, never used (the driver builds a plain Client)',
    }),
  ),
  ...UNUSED_OBJECT_OPERATIONS.map((path): Unreachable => ({ path, from: ALI_OSS_OBJECT_OPERATIONS, why: `object operation ${path.slice(2)}, never called` })),
  {
    path: 'platform',
    from: ALI_OSS_CLIENT,
    why: "browser detection for the User-Agent; without it ali-oss falls back to its own 'Node.js <version> on <platform> <arch>'",
  },
  { path: 'bowser', from: ALI_OSS_CLIENT, why: 'read only by a browser-version check that Node never runs' },
  { path: 'xmlbuilder', from: 'xml2js/lib/builder.js', why: "xml2js's Builder, which ali-oss never uses (it only parses XML, and writes its own)" },
  { path: 'formstream', from: 'urllib/lib/urllib.js', why: 'used by urllib only for multipart file uploads (its files option), which ali-oss never sends' },
  ...['side-channel/index.js', 'side-channel-list/index.js', 'side-channel-map/index.js', 'side-channel-weakmap/index.js'].map(
    (from): Unreachable => ({
      path: 'object-inspect',
      from,
      exports: 'String',
      why: "side-channel (qs's stringify, which ali-oss signs with) describes a key with it only in assert()'s error, which qs never calls",
    }),
  ),
  // Reached, but only with the three names the driver's requests carry: a `.json` object (put, get,
  // delete), deleteMulti's `xml`, a listing's none. The same answers mime's table gives, so every
  // request is signed with the Content-Type it had; the bundle test drives all five operations.
  ...['ali-oss/lib/object.js', 'ali-oss/lib/common/utils/createRequest.js'].map(
    (from): Unreachable => ({
      path: 'mime',
      from,
      exports: "{ getType: (name) => ({ json: 'application/json', xml: 'application/xml' })[String(name).split('.').pop().toLowerCase()] ?? null }",
      why: "mime's whole type table for the three content types the driver's requests need",
    }),
  ),
  { path: 'win-release', from: 'os-name/index.js', exports: "() => ''", why: "Windows' release name for urllib's User-Agent; FC runs Linux" },
  // Reached, but silent unless DEBUG names ali-oss — and then harmful: its lines are plain text among
  // the function's JSON log lines, and its "request … with headers" line carries the request's
  // Authorization signature and STS token (docs/architecture.md §5.5: no secret in a log line).
  ...['ali-oss/lib/client.js', 'ali-oss/lib/object.js', 'ali-oss/lib/common/utils/createRequest.js'].map(
    (from): Unreachable => ({ path: 'debug', from, exports: '() => () => undefined', why: "ali-oss's debug output, which would log request signatures and STS tokens" }),
  ),
];

/** The entry for `path` required by `importer` (an absolute file name), if it is one. */
function entryFor(path: string, importer: string): Unreachable | undefined {
  const at = importer.lastIndexOf('node_modules/');
  const from = at >= 0 ? importer.slice(at + 'node_modules/'.length) : importer;
  return UNREACHABLE_MODULES.find((entry) => entry.path === path && (entry.from === undefined || entry.from === from));
}

/** Where a left-out module would have been, as the source map names it: `node_modules/…`. */
function stubName(entry: Unreachable): string {
  if (!entry.path.startsWith('.') || entry.from === undefined) return `node_modules/${entry.path}`;
  return `node_modules/${posix.join(posix.dirname(entry.from), entry.path)}.js`;
}

/** The esbuild plugin: each unreachable module becomes its stand-in; `mime` becomes `mime/lite`. */
export function unreachableModules(): Plugin {
  const stubs = new Map(UNREACHABLE_MODULES.map((entry) => [stubName(entry), entry.exports ?? '{}']));
  return {
    name: 'unreachable-modules',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        const entry = entryFor(args.path, args.importer.replace(/\\/g, '/'));
        return entry === undefined ? undefined : { path: stubName(entry), namespace: 'unreachable' };
      });
      build.onLoad({ filter: /.*/, namespace: 'unreachable' }, (args) => ({ contents: `module.exports = ${stubs.get(args.path) ?? '{}'};`, loader: 'js' }));
    },
  };
}
