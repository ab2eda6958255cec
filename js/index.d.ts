export type TensorType = 'float32' | 'int32' | 'int64' | 'bool';

export type TensorData = Float32Array | Int32Array | BigInt64Array | Uint8Array;

export type ErrorCode =
  | 'UnsupportedOpset'
  | 'UnsupportedDtype'
  | 'UnsupportedOperator'
  | 'MalformedModel'
  | 'InvalidInput'
  | 'ShapeMismatch'
  | 'OutOfMemory'
  | 'InvalidArgument'
  | 'Internal';

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

export interface SessionOptions {
  /** How many per-input-shape plans to keep (least recently used are dropped). Default 8. */
  maxCachedPlans?: number;
}

export interface SessionStats {
  plansBuilt: number;
  planCacheHits: number;
  loadedNodes: number;
  graphNodes: number;
  runSteps: number;
  foldedNodes: number;
  fusedNodes: number;
  /** Run steps computing integer (shape) tensors that could not be evaluated at plan time. */
  shapeSteps: number;
  activationBytes: number;
}

export interface RunOptions {
  /** Time every node of the run (see InferenceSession.lastProfile). */
  profile?: boolean;
}

export interface NodeTiming {
  node: string;
  op: string;
  ms: number;
  /** The node's first output shape, e.g. "[1,32,112,112]". */
  shape: string;
}

export type ModelSource = string | URL | ArrayBuffer | Uint8Array | Blob;

export class InferenceSession {
  static create(source: ModelSource, options?: SessionOptions): Promise<InferenceSession>;
  readonly inputNames: string[];
  readonly outputNames: string[];
  readonly inputMetadata: ValueMetadata[];
  readonly outputMetadata: ValueMetadata[];
  readonly stats: SessionStats;
  /** The per-node timings of the last run made with { profile: true }, else null. */
  readonly lastProfile: NodeTiming[] | null;
  run(feeds: Record<string, Tensor>, options?: RunOptions): Promise<Record<string, Tensor>>;
  release(): Promise<void>;
}

export function supportedOps(): Promise<string[]>;
