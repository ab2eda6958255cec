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
  activationBytes: number;
}

export type ModelSource = string | URL | ArrayBuffer | Uint8Array | Blob;

export class InferenceSession {
  static create(source: ModelSource, options?: SessionOptions): Promise<InferenceSession>;
  readonly inputNames: string[];
  readonly outputNames: string[];
  readonly inputMetadata: ValueMetadata[];
  readonly outputMetadata: ValueMetadata[];
  readonly stats: SessionStats;
  run(feeds: Record<string, Tensor>): Promise<Record<string, Tensor>>;
  release(): Promise<void>;
}

export function supportedOps(): Promise<string[]>;
