// One registration function per kernel file; register_all.cc calls each of them.
#pragma once

#include "core/op_registry.h"

namespace webnx {

void RegisterConvKernels(OpRegistry& r);             // conv.cc
void RegisterConvTransposeKernels(OpRegistry& r);    // conv_transpose.cc
void RegisterPoolKernels(OpRegistry& r);             // pool.cc
void RegisterNormalizationKernels(OpRegistry& r);    // normalization.cc
void RegisterGemmKernels(OpRegistry& r);             // gemm.cc (Gemm, MatMul)
void RegisterSoftmaxKernels(OpRegistry& r);          // softmax.cc
void RegisterReduceKernels(OpRegistry& r);           // reduce.cc
void RegisterBinaryKernels(OpRegistry& r);           // binary.cc (Add, Sub, Mul, Div, ...)
void RegisterWhereKernels(OpRegistry& r);            // where.cc
void RegisterVariadicKernels(OpRegistry& r);         // variadic.cc (Max, Min, Sum, Mean)
void RegisterUnaryKernels(OpRegistry& r);            // unary.cc (Exp, Log, Sqrt, Neg, ...)
void RegisterActivationKernels(OpRegistry& r);       // activations.cc (Relu, Clip, Sigmoid, ...)
void RegisterShapeKernels(OpRegistry& r);            // shape_ops.cc (Reshape, Squeeze, Expand, ...)
void RegisterShapeComputeKernels(OpRegistry& r);     // shape_compute.cc (Shape, Size, Range, ...)
void RegisterTransposeKernels(OpRegistry& r);        // transpose.cc
void RegisterConcatSplitKernels(OpRegistry& r);      // concat_split.cc
void RegisterGatherSliceKernels(OpRegistry& r);      // gather_slice.cc
void RegisterPadKernels(OpRegistry& r);              // pad.cc
void RegisterMiscKernels(OpRegistry& r);             // misc.cc (Constant, Identity, Dropout)
void RegisterCastKernels(OpRegistry& r);             // cast.cc (Cast, CastLike)
void RegisterQuantizeLinearKernels(OpRegistry& r);   // quantize_linear.cc
void RegisterQuantizedMatMulKernels(OpRegistry& r);  // quantized_matmul.cc
void RegisterQuantizedConvKernels(OpRegistry& r);    // quantized_conv.cc
void RegisterQLinearKernels(OpRegistry& r);          // qlinear_ops.cc
void RegisterResizeKernels(OpRegistry& r);           // resize.cc (Resize, Upsample)
void RegisterLayerNormKernels(OpRegistry& r);        // layer_norm.cc (LayerNormalization)
void RegisterArgExtremeKernels(OpRegistry& r);       // arg_extreme.cc (ArgMax, ArgMin)
void RegisterCumSumKernels(OpRegistry& r);           // cumsum.cc
void RegisterTriangularKernels(OpRegistry& r);       // triangular.cc (Trilu, EyeLike)
void RegisterDepthSpaceKernels(OpRegistry& r);       // depth_space.cc (DepthToSpace, SpaceToDepth)
void RegisterModKernels(OpRegistry& r);              // mod.cc
void RegisterLossKernels(OpRegistry& r);             // losses.cc (NLL, softmax cross-entropy)
void RegisterTopKKernels(OpRegistry& r);             // top_k.cc
void RegisterScatterGatherKernels(OpRegistry& r);    // scatter_gather.cc (GatherND, Scatter*)
void RegisterOneHotKernels(OpRegistry& r);           // one_hot.cc
void RegisterGroupNormKernels(OpRegistry& r);        // group_norm.cc (GroupNormalization)
void RegisterLpNormKernels(OpRegistry& r);           // lp_norm.cc (LpNormalization)
void RegisterMvnKernels(OpRegistry& r);              // mvn.cc (MeanVarianceNormalization)
void RegisterIfKernels(OpRegistry& r);               // control_flow_if.cc
void RegisterLoopKernels(OpRegistry& r);             // control_flow_loop.cc
void RegisterScanKernels(OpRegistry& r);             // control_flow_scan.cc
void RegisterNonZeroCompressKernels(OpRegistry& r);  // nonzero_compress.cc
void RegisterUniqueKernels(OpRegistry& r);           // unique.cc
void RegisterNonMaxSuppressionKernels(OpRegistry& r);  // non_max_suppression.cc
void RegisterGridSampleKernels(OpRegistry& r);         // grid_sample.cc
void RegisterLpPoolKernels(OpRegistry& r);             // lp_pool.cc
void RegisterAffineGridCol2ImKernels(OpRegistry& r);   // affine_grid_col2im.cc
void RegisterScatterIntoKernels(OpRegistry& r);        // scatter_into.cc (TensorScatter, MaxUnpool)
void RegisterDeformConvKernels(OpRegistry& r);         // deform_conv.cc
void RegisterRecurrentKernels(OpRegistry& r);          // rnn.cc (RNN, GRU, LSTM)

void RegisterUnaryMathExtraKernels(OpRegistry& r);   // unary_math_extra.cc (Tan, IsNaN, ...)
void RegisterActivationExtraKernels(OpRegistry& r);  // activations_extra.cc (Mish, Celu, ...)
void RegisterAttentionKernels(OpRegistry& r);        // attention.cc
void RegisterRotaryEmbeddingKernels(OpRegistry& r);  // rotary_embedding.cc
void RegisterSignalDftKernels(OpRegistry& r);        // signal_dft.cc (DFT)
void RegisterSignalStftKernels(OpRegistry& r);       // signal_stft.cc (STFT)
void RegisterSignalWindowKernels(OpRegistry& r);     // signal_windows.cc (Hann..., MelWeight)
void RegisterReverseSequenceKernels(OpRegistry& r);  // reverse_sequence.cc
void RegisterDetKernels(OpRegistry& r);              // det.cc
void RegisterSwishKernels(OpRegistry& r);            // swish.cc
void RegisterEinsumKernels(OpRegistry& r);           // einsum.cc
void RegisterBitwiseKernels(OpRegistry& r);          // bitwise.cc (BitwiseAnd, ..., Not)
void RegisterCenterCropPadKernels(OpRegistry& r);    // center_crop_pad.cc

}  // namespace webnx
