export type TensorType =
  | 'float32' | 'float16' | 'float64'
  | 'int8' | 'int16' | 'int32' | 'int64'
  | 'uint8' | 'uint16' | 'uint32' | 'uint64'
  | 'bool';

/** float16 is its bits in a Uint16Array (a Float16Array is accepted where the engine has one). */
export type TensorData =
  | Float32Array | Float64Array
  | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint8Array | Uint16Array | Uint32Array | BigUint64Array;

export type ErrorCode =
  | 'UnsupportedOpset'
  | 'UnsupportedDtype'
  | 'UnsupportedOperator'
  | 'MalformedModel'
  | 'InvalidInput'
  | 'ShapeMismatch'
  | 'OutOfMemory'
  | 'InvalidArgument'
  | 'Internal'
  /** webnx.wasm could not be fetched, or what came back is not WebAssembly (e.g. an HTML 404 page:
   *  "got HTML instead of webnx.wasm from <url> — check env.wasmPaths / your bundler's asset handling"). */
  | 'WasmLoadFailed';

export class WebnxError extends Error {
  readonly code: ErrorCode;
}

export class Tensor {
  constructor(type: TensorType, data: TensorData | number[] | bigint[], dims?: readonly number[]);
  readonly type: TensorType;
  readonly data: TensorData;
  readonly dims: readonly number[];
  readonly size: number;
}

export interface ValueMetadata {
  name: string;
  type: TensorType;
  /** A number per fixed dim, the symbol's name for a named dynamic dim, null if unknown; null when the rank is unknown. */
  dims: (number | string | null)[] | null;
}

export interface LoadProgress {
  /** Bytes of the model read so far. */
  loaded: number;
  /** The model's size in bytes; undefined when the server does not say (or compresses it). */
  total?: number;
}

export interface SessionOptions {
  /** How many per-input-shape plans to keep (least recently used are dropped). Default 8. */
  maxCachedPlans?: number;
  /**
   * Threads each run may use. Default: the cores (at most 4) where SharedArrayBuffer is usable
   * (always in Node; in browsers only on cross-origin-isolated pages), else 1. Never more than
   * the cores (nor 4). Asking for more than 1 where threads cannot be had warns once and runs
   * single-threaded.
   */
  numThreads?: number;
  /** Called as the model's bytes arrive (URL, Blob/File or Node path), last with loaded === total. */
  onProgress?: (progress: LoadProgress) => void;
  /**
   * Run the session in a dedicated Worker (browser: a module Worker; Node: worker_threads), with the
   * same API. Inputs are copied and outputs transferred; `stats` is a snapshot from the last call.
   * The session is an InferenceSession like any other. Call release() to end the worker.
   */
  worker?: boolean;
  /**
   * Side files the model names, by name: a JSON graph document's (webnx-graph tensors' "file",
   * ONNX-JSON external data "location"), or an ONNX model's external data (initializers stored
   * outside the .onnx, by their "location"). A JSON document loaded from a .json path or URL
   * reads the ones not given here from beside it.
   */
  files?: Record<string, ArrayBuffer | ArrayBufferView> | Map<string, ArrayBuffer | ArrayBufferView>;
  /** Bounds on what the model may ask for; unknown keys are an InvalidArgument error. */
  limits?: SessionLimits;
  /**
   * Sizes for symbolic dims by name ({ batch: 1 }), as onnxruntime's freeDimensionOverrides: the
   * inputs and outputs declare that size instead, feeds must have it, and a model whose inputs
   * all become fixed is planned by create() rather than by its first run.
   */
  freeDimensionOverrides?: Record<string, number>;
}

/**
 * Limits checked at load and plan time (defaults in parentheses, sized for real models in a
 * 4 GiB wasm heap). Exceeding one fails with MalformedModel (structure) or OutOfMemory (sizes),
 * naming the limit, e.g. "the model has 2000001 nodes; the limit is 2000000 (limits.maxNodes)".
 */
export interface SessionLimits {
  /** Rank of any tensor (32). */
  maxRank?: number;
  /** Size of one dimension (2^32 - 64, also the hard ceiling). */
  maxDimension?: number;
  /** Elements of one tensor (2^32 - 64, also the hard ceiling). */
  maxTensorElements?: number;
  /** Bytes of one tensor, kernel scratch included (2^32 - 64, also the hard ceiling). */
  maxTensorBytes?: number;
  /** Bytes of all initializers and load-time constants together (3 GiB). */
  maxInitializerBytes?: number;
  /** Bytes of one plan's activation arena and plan-time constants (3 GiB). */
  maxArenaBytes?: number;
  /** Nodes in the graph (2,000,000). */
  maxNodes?: number;
  /** Longest chain of nodes (1,000,000). */
  maxGraphDepth?: number;
  /** Bytes of any name or string attribute (1 MiB). */
  maxStringLength?: number;
  /** Nesting of subgraphs (If/Loop bodies) (16). */
  maxSubgraphDepth?: number;
  /** Iterations of one Loop whose end is decided by its data as it runs (16,777,216). */
  maxLoopIterations?: number;
}

export interface SessionStats {
  plansBuilt: number;
  planCacheHits: number;
  loadedNodes: number;
  graphNodes: number;
  /** Bytes of packed weights the session holds besides the model's weights (made once, shared by its plans). */
  packedWeightBytes: number;
  /** Bytes of weights packed over their own storage (those only one conv reads). */
  packedInPlaceBytes: number;
  runSteps: number;
  foldedNodes: number;
  fusedNodes: number;
  /** Run steps computing integer (shape) tensors that could not be evaluated at plan time. */
  shapeSteps: number;
  activationBytes: number;
  /** Milliseconds taken to make the last plan (shape inference, weight packing, arena layout). */
  planMs: number;
}

export interface RunOptions {
  /** Time every node of the run (see InferenceSession.lastProfile). */
  profile?: boolean;
  /**
   * The outputs to compute and return (default: all). Only the nodes they depend on run; each
   * set of outputs gets a plan of its own, cached beside the others.
   */
  outputs?: string[];
}

export interface NodeTiming {
  node: string;
  op: string;
  ms: number;
  /** The node's first output shape, e.g. "[1,32,112,112]". */
  shape: string;
}

/** A tensor in a webnx-graph document: inline numbers, base64 little-endian bytes, or a side file. */
export interface WebnxGraphTensor {
  /** Default 'float32'; float16 is widened to float32 at load. */
  dtype?: 'float32' | 'float16' | 'int32' | 'int64' | 'bool';
  shape?: number[];
  /** Row-major values, flat or nested; typed arrays are accepted in document objects. */
  data?: number | boolean | string | unknown[] | ArrayBufferView;
  base64?: string;
  file?: string;
  offset?: number;
  length?: number;
}

export interface WebnxGraphNode {
  /** The node's name; also its output's name when output(s) is not given. */
  id?: string;
  /** An ONNX op, or a DSL op: Input, Constant, Conv2D, DepthwiseConv2D, BatchNorm, Relu6, ... (docs/dsl.md). */
  op: string;
  domain?: string;
  inputs?: string[];
  output?: string;
  outputs?: string[];
  attrs?: Record<string, unknown>;
  /** Layout of the pooling ops (AveragePool, MaxPool, Global*Pool); default: the document's. */
  layout?: 'NHWC' | 'NCHW';
  /** Constant nodes. */
  tensor?: WebnxGraphTensor;
  /** Input nodes. */
  dtype?: 'float32' | 'int32' | 'int64' | 'bool';
  shape?: (number | string | null)[];
}

/** The webnx-graph dialect of the JSON graph DSL (docs/dsl.md, docs/webnx-graph.schema.json). */
export interface WebnxGraphDocument {
  format: 'webnx-graph';
  version?: 1;
  /** Default-domain opset of the ONNX ops (default 17), or { domain: version }. */
  opset?: number | Record<string, number>;
  /** Layout of the pooling ops: 'NHWC' (default) or 'NCHW'. */
  layout?: 'NHWC' | 'NCHW';
  producer?: string;
  metadata?: Record<string, string>;
  inputs?: { name: string; dtype?: 'float32' | 'int32' | 'int64' | 'bool'; shape?: (number | string | null)[] }[];
  outputs: (string | { name: string; dtype?: string; shape?: (number | string | null)[] })[];
  tensors?: Record<string, WebnxGraphTensor>;
  nodes: WebnxGraphNode[];
}

/** ONNX-JSON: a ModelProto in protobuf's JSON mapping or the snake_case form of JS exporters. */
export interface OnnxJsonDocument {
  graph: Record<string, unknown>;
  [field: string]: unknown;
}

export type ModelSource =
  | string
  | URL
  | ArrayBuffer
  | ArrayBufferView
  | Blob
  | WebnxGraphDocument
  | OnnxJsonDocument;

export class InferenceSession {
  static create(source: ModelSource, options?: SessionOptions): Promise<InferenceSession>;
  readonly inputNames: string[];
  readonly outputNames: string[];
  readonly inputMetadata: ValueMetadata[];
  readonly outputMetadata: ValueMetadata[];
  readonly stats: SessionStats;
  /** What the loader changed so that the document runs as its producer meant (NeatapticTS
   *  exports: docs/dsl.md); each is also printed once with console.warn by create(). */
  readonly warnings: string[];
  /** The per-node timings of the last run made with { profile: true }, else null. */
  readonly lastProfile: NodeTiming[] | null;
  run(feeds: Record<string, Tensor>, options?: RunOptions): Promise<Record<string, Tensor>>;
  release(): Promise<void>;
}

export function supportedOps(): Promise<string[]>;

/** Read before the first InferenceSession.create() loads the wasm runtime. */
export const env: {
  /** Folder URL that holds webnx.wasm (relative to the page), or { wasm: URL of the file }.
   *  Default: next to the package's files, via new URL('../dist/webnx.wasm', import.meta.url). */
  wasmPaths?: string | URL | { wasm: string | URL };
  /** The webnx.wasm bytes; wins over wasmPaths. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** The SIMD build: 'auto' (unset; relaxed SIMD where the engine runs it, else plain SIMD),
   *  'relaxed' (UnsupportedFeature where the engine lacks it) or 'simd'. */
  simd?: 'auto' | 'relaxed' | 'simd';
  /** The build the last InferenceSession.create() loaded. */
  readonly backend?: 'wasm' | 'wasm-mt' | 'wasm-relaxed' | 'wasm-relaxed-mt';
  /** How that build multiplies int8: 'relaxed-dot' where the engine's relaxed dot product is
   *  exact for every 8-bit value (relaxed builds only), else 'i16-dot'. */
  readonly int8Product?: 'relaxed-dot' | 'i16-dot';
};

export interface ModelSummary {
  format: string;
  irVersion: number | null;
  producer: string;
  opsets: { domain: string; version: number }[];
  /** As in ValueMetadata, but type may be any ONNX dtype name ('uint8', 'float16', …) or 'unknown'. */
  inputs: { name: string; type: string; dims: (number | string | null)[] | null }[];
  outputs: { name: string; type: string; dims: (number | string | null)[] | null }[];
  /** Every op type with its node count (subgraphs included), most used first. */
  ops: { op: string; domain: string; count: number }[];
  nodeCount: number;
  /** Elements in the model's initializers. */
  parameters: number;
  weightDtypes: string[];
  metadata: Record<string, string>;
}

/** Looks inside a model (ONNX bytes, JSON bytes or a JSON graph) without loading it into the runtime. */
export function inspectModel(model: Uint8Array | ArrayBuffer | object): ModelSummary;
