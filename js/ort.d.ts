// Types of webnx/ort (js/ort.mjs): onnxruntime-web's public surface over webnx.
import { Tensor as WebnxTensor, TensorType } from './index.js';

export declare class Tensor extends WebnxTensor {
  constructor(type: TensorType, data: ArrayLike<unknown> | ArrayBufferView, dims?: readonly number[]);
  constructor(data: ArrayBufferView | readonly boolean[], dims?: readonly number[]);
  /** Always 'cpu': webnx tensors live in JavaScript memory. */
  readonly location: 'cpu';
  readonly cpuData: ArrayBufferView;
  getData(releaseData?: boolean): Promise<ArrayBufferView>;
  /** Drops the data; reading it afterwards throws. */
  dispose(): void;
  /** The same data under other dims (of the same size). */
  reshape(dims: readonly number[]): Tensor;
  /** Browsers: a float32 [1, C, H, W] tensor of (pixel + bias) / mean, as onnxruntime-web makes it. */
  static fromImage(image: ImageData | HTMLImageElement | ImageBitmap | string,
    options?: ImageOptions): Promise<Tensor>;
  toImageData(options?: ImageOptions): ImageData;
  toDataURL(options?: ImageOptions): string;
}

export interface ImageOptions {
  resizedWidth?: number;
  resizedHeight?: number;
  format?: 'RGB' | 'RGBA' | 'BGR' | 'RBG';
  tensorFormat?: 'RGB' | 'RGBA' | 'BGR' | 'RBG';
  tensorLayout?: 'NCHW' | 'NHWC';
  dataType?: 'float32' | 'uint8';
  norm?: { mean?: number | [number, number, number] | [number, number, number, number];
    bias?: number | [number, number, number] | [number, number, number, number] };
}

export declare namespace InferenceSession {
  type FeedsType = { readonly [name: string]: Tensor };
  type FetchesType = readonly string[] | { readonly [name: string]: Tensor | null };
  type ReturnType = { [name: string]: Tensor };
  type ExecutionProviderConfig = string | { readonly name: string };
  interface SessionOptions {
    /** 'wasm' and 'cpu' run; any other falls back to wasm with one console warning. */
    executionProviders?: readonly ExecutionProviderConfig[];
    /** Accepted; webnx always optimizes the graph. */
    graphOptimizationLevel?: 'disabled' | 'basic' | 'extended' | 'layout' | 'all';
    /** Accepted; symbolic dims take their sizes from each run's feeds. */
    freeDimensionOverrides?: { readonly [dimensionName: string]: number };
    /** Not supported yet: an error with code UnsupportedFeature. */
    externalData?: readonly unknown[];
    logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
    enableProfiling?: boolean;
    extra?: Record<string, unknown>;
    [option: string]: unknown;
  }
  interface RunOptions {
    logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
    logVerbosityLevel?: number;
    terminate?: boolean;
    tag?: string;
    extra?: Record<string, unknown>;
  }
  interface ValueMetadata {
    readonly name: string;
    readonly isTensor: true;
    readonly type: TensorType;
    /** A number, the dim's symbol, or '' when unknown. */
    readonly shape: ReadonlyArray<number | string>;
  }
}

export declare class InferenceSession {
  static create(uri: string | URL, options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
  static create(buffer: ArrayBufferLike, options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
  static create(buffer: ArrayBufferLike, byteOffset: number, byteLength?: number,
    options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
  static create(buffer: Uint8Array, options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata: readonly InferenceSession.ValueMetadata[];
  readonly outputMetadata: readonly InferenceSession.ValueMetadata[];
  run(feeds: InferenceSession.FeedsType, options?: InferenceSession.RunOptions): Promise<InferenceSession.ReturnType>;
  run(feeds: InferenceSession.FeedsType, fetches: InferenceSession.FetchesType,
    options?: InferenceSession.RunOptions): Promise<InferenceSession.ReturnType>;
  startProfiling(): void;
  endProfiling(): void;
  release(): Promise<void>;
}

export declare const env: {
  wasm: {
    numThreads?: number;
    simd?: boolean | 'fixed' | 'relaxed';
    proxy?: boolean;
    initTimeout?: number;
    trace?: boolean;
    wasmPaths?: string | { wasm?: string | URL; mjs?: string | URL };
    wasmBinary?: ArrayBufferLike | Uint8Array;
  };
  webgl: Record<string, unknown>;
  webgpu: Record<string, unknown>;
  logLevel?: 'verbose' | 'info' | 'warning' | 'error' | 'fatal';
  debug?: boolean;
  trace?: boolean;
  readonly versions: { readonly common: string; readonly web: string };
  [name: string]: unknown;
};
