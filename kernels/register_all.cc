#include "kernels/registrations.h"

namespace webnx {

void RegisterBuiltinKernels(OpRegistry& r) {
  RegisterConvKernels(r);
  RegisterConvTransposeKernels(r);
  RegisterPoolKernels(r);
  RegisterNormalizationKernels(r);
  RegisterGemmKernels(r);
  RegisterSoftmaxKernels(r);
  RegisterReduceKernels(r);
  RegisterBinaryKernels(r);
  RegisterWhereKernels(r);
  RegisterVariadicKernels(r);
  RegisterUnaryKernels(r);
  RegisterActivationKernels(r);
  RegisterUnaryMathExtraKernels(r);
  RegisterActivationExtraKernels(r);
  RegisterShapeKernels(r);
  RegisterShapeComputeKernels(r);
  RegisterTransposeKernels(r);
  RegisterConcatSplitKernels(r);
  RegisterGatherSliceKernels(r);
  RegisterPadKernels(r);
  RegisterMiscKernels(r);
  RegisterCastKernels(r);
  RegisterQuantizeLinearKernels(r);
  RegisterQuantizedMatMulKernels(r);
  RegisterQuantizedConvKernels(r);
  RegisterQLinearKernels(r);
  RegisterResizeKernels(r);
  RegisterLayerNormKernels(r);
  RegisterArgExtremeKernels(r);
  RegisterCumSumKernels(r);
  RegisterTriangularKernels(r);
  RegisterDepthSpaceKernels(r);
  RegisterModKernels(r);
  RegisterLossKernels(r);
  RegisterTopKKernels(r);
  RegisterScatterGatherKernels(r);
  RegisterOneHotKernels(r);
  RegisterGroupNormKernels(r);
  RegisterLpNormKernels(r);
  RegisterMvnKernels(r);
  RegisterIfKernels(r);
  RegisterLoopKernels(r);
  RegisterScanKernels(r);
  RegisterNonZeroCompressKernels(r);
  RegisterUniqueKernels(r);
  RegisterNonMaxSuppressionKernels(r);
  RegisterGridSampleKernels(r);
  RegisterLpPoolKernels(r);
  RegisterAffineGridCol2ImKernels(r);
  RegisterScatterIntoKernels(r);
  RegisterDeformConvKernels(r);
  RegisterRecurrentKernels(r);
  RegisterAttentionKernels(r);
  RegisterRotaryEmbeddingKernels(r);
  RegisterSignalDftKernels(r);
  RegisterSignalStftKernels(r);
  RegisterSignalWindowKernels(r);
  RegisterReverseSequenceKernels(r);
  RegisterDetKernels(r);
  RegisterSwishKernels(r);
  RegisterEinsumKernels(r);
  RegisterBitwiseKernels(r);
  RegisterCenterCropPadKernels(r);
}

}  // namespace webnx
