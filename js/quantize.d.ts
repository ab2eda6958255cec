import type { Tensor } from './index.js';

/** 'dynamic': ConvInteger/MatMulInteger with activations quantized at run time; 'qdq':
 *  QuantizeLinear/DequantizeLinear around the float ops, activation scales from calibration. */
export type QuantizeMode = 'dynamic' | 'qdq';

/** One calibration sample: a tensor for every model input, as InferenceSession.run takes them. */
export type CalibrationSample = Record<string, Tensor>;

export interface QuantizeOptions {
  mode: QuantizeMode;
  /** qdq: the samples to calibrate on, iterated once. */
  samples?: Iterable<CalibrationSample> | AsyncIterable<CalibrationSample>;
  /** qdq without samples: this many seeded random samples in [-1, 1) (default 8, with a warning). */
  randomSamples?: number;
  /** First seed of the random samples (default 1). */
  seed?: number;
  /** Sizes for named input dims of random samples, e.g. { N: 1 } (default 1; 224 for a 4-D input's sides). */
  dims?: Record<string, number>;
  /** Threads of the webnx session that runs the calibration. */
  numThreads?: number;
  /** Called with each warning (they are also in the report). */
  onWarning?: (message: string) => void;
}

export interface QuantizeReport {
  mode: QuantizeMode;
  quantized: { node: string; op: 'Conv' | 'MatMul' | 'Gemm'; as: 'ConvInteger' | 'MatMulInteger' | 'QDQ' }[];
  /** Nodes left in float and why (a weight that is not constant, Gemm with transA, …). */
  skipped: { node: string; op: string; reason: string }[];
  warnings: string[];
  /** The default-domain opset when it had to be raised (11 for dynamic, 13 for qdq), else null. */
  opset: { from: number; to: number } | null;
  /** qdq: how many samples the calibration ran. */
  calibrationSamples?: number;
}

export const MODES: readonly QuantizeMode[];

/** An ONNX model's bytes -> its int8 version (docs/quantize.md) and what was done. */
export function quantize(model: Uint8Array, options: QuantizeOptions): Promise<{ model: Uint8Array; report: QuantizeReport }>;

/** quantize() without the report. */
export function quantizeModel(model: Uint8Array, options: QuantizeOptions): Promise<Uint8Array>;
