// f32 GEMM microkernels (WASM SIMD128 via kernels/simd/vec.h) on packed operands. Convolutions
// in NCHW map onto them directly: weights [Cout, Cin*kh*kw], packed once at plan time, are the
// left matrix; the input [Cin*kh*kw, H*W] (im2col'd for k x k) is the right matrix, packed a
// block of columns at a time into 8-column panels so the microkernel streams both operands.
#pragma once

#include <cstddef>
#include <limits>

#include "kernels/simd/activation.h"

namespace webnx::simd {

constexpr int kGemmMr = 4;  // rows of C per microkernel tile
constexpr int kGemmNr = 8;  // columns of C per microkernel tile (two f32x4)

struct GemmEpilogue {
  const float* bias = nullptr;  // one per row of C, or null
  // Added to C before the clamp (a residual connection), laid out like C (ldc), or null.
  const float* addend = nullptr;
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
  // Applied last, to each panel of kGemmMr rows while it is in cache (not by GemmTransposedRhs).
  Activation activation;
};

// Floats needed to pack an M x K matrix into kGemmMr-row panels.
size_t PackedLhsSize(int m, int k);
// Panel p holds, for each k, rows [p*Mr, p*Mr+Mr) of column k; rows past M are zero.
void PackLhs(const float* a, int m, int k, int lda, float* packed);
// PackLhs over the matrix's own storage (lda k, m a multiple of kGemmMr: the packed form is then
// the same size): each panel's rows are copied out before the panel is written.
void PackLhsInPlace(float* a, int m, int k);
// PackLhs for A stored transposed: k x m, lda floats per stored row.
void PackLhsTransposed(const float* a, int m, int k, int lda, float* packed);
// The inverse: the m x k row-major matrix (lda k) back from PackLhs's layout.
void UnpackLhs(const float* packed, int m, int k, float* a);

// Floats needed to pack a K x N matrix into kGemmNr-column panels.
size_t PackedRhsSize(int k, int n);
// Panel p holds, for each k, columns [p*Nr, p*Nr+Nr) of row k; columns past N are zero.
void PackRhs(const float* b, int k, int n, int ldb, float* packed);
// PackRhs for B stored transposed: n x k, ldb floats per stored row.
void PackRhsTransposed(const float* b, int k, int n, int ldb, float* packed);

// C[i][j] = act(clamp(bias[i] + sum_k A[i][k] * B[k][j] + addend[i][j])) for i < M, j < N, both
// operands packed.
void GemmPacked(int m, int n, int k, const float* packed_a, const float* packed_b, float* c,
                int ldc, const GemmEpilogue& epilogue);

// The same with B read in place (row-major, ldb floats per row) rather than packed, which
// saves a pass over B. `tail_panel` holds k * kGemmNr floats for the last n % 8 columns.
void GemmUnpackedRhs(int m, int n, int k, const float* packed_a, const float* b, int ldb, float* c,
                     int ldc, const GemmEpilogue& epilogue, float* tail_panel);
// Whether GemmUnpackedRhs beats packing B for an m x k left matrix. Measured in wasm on
// MobileNetV2's 1x1 shapes: it does except when few rows of A share each strided load of a
// long k (m=24, k=144: 28.6 vs 30.0 GFLOP/s), and except for k >= 256, whatever m: a tile's
// k strided rows of B then spill out of L1, where a packed panel streams (in-process
// alternating A/B: MobileNetV2's 576- and 960-channel projections 15-29% faster packed,
// SqueezeNet's 512 -> 1000 classifier conv 20-30%, the 320 -> 1280 and 464 -> 1024 head convs
// of MobileNetV2, EfficientNet-B0 and ShuffleNet 8-24%).
inline bool GemmPrefersUnpackedRhs(int m, int k) {
  return k <= 64 || (m >= 32 && k < 256);
}

// An image stored pixel-interleaved: pixel (y, x) is 4 floats (one per channel) at
// origin + y * row_stride + 4 * x. Only rows < rows and columns < cols are stored (the
// pixels a consumer reads).
struct InterleavedImage {
  float* origin;
  size_t row_stride;
  int width;  // pixels per image row
  int rows, cols;
};

// One panel of kGemmMr rows of the packed left matrix (its first `rows` real, rows < kGemmMr
// stored as channels of zero) times B [k x n] read in place (ldb floats per row), plus bias,
// clamped to [lo, hi]: column j is image pixel (j / width, j % width), written to `out` as the
// panel's 4 rows interleaved. The arithmetic of every output is GemmUnpackedRhs's.
// `tail_panel`: B's last n % kGemmNr columns packed by PackRhs (unread when there are none),
// packed once for every panel of A.
void GemmPanelInterleaved(int n, int k, const float* packed_panel, int rows, const float* b,
                          int ldb, const float* bias, float lo, float hi,
                          const InterleavedImage& out, const float* tail_panel);

// Columns per packed block of the right matrix such that the block stays in L2.
int GemmColumnBlock(int k);

// Y[i][j] = clamp(bias[j] + dot(X[i, :], W[j, :])): a matrix times the transpose of a
// row-major weight (Gemm with transB=1, the classifier of every zoo model).
void GemmTransposedRhs(int m, int n, int k, const float* x, int ldx, const float* w, int ldw,
                       float* y, int ldy, const GemmEpilogue& epilogue);

}  // namespace webnx::simd
