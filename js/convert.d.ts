import type { OnnxJsonDocument, WebnxGraphDocument } from './index.js';

/** ONNX bytes -> ONNX-JSON in protobuf's JSON mapping (camelCase, int64 as strings, enum names, base64 bytes). */
export function onnxToOnnxJson(onnx: Uint8Array): OnnxJsonDocument;

/**
 * ONNX bytes -> a webnx-graph document ("layout": "NCHW", ONNX ops by name) and the side file
 * holding every tensor larger than `threshold` bytes (default 4096), or null when there is none.
 */
export function onnxToWebnxGraph(
  onnx: Uint8Array,
  options?: { binName?: string; threshold?: number },
): { doc: WebnxGraphDocument; bin: Uint8Array | null };

/** ONNX-JSON (any spelling webnx reads; an object or its text) -> ONNX bytes. Without opset_import it imports opset 13. */
export function onnxJsonToOnnx(doc: OnnxJsonDocument | Record<string, unknown> | string): Uint8Array;

export function toBase64(bytes: Uint8Array): string;
/** Standard or URL-safe, padded or not; null when the text is not base64. */
export function fromBase64(text: string): Uint8Array | null;
