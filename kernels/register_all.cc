#include "kernels/registrations.h"

namespace webnx {

void RegisterBuiltinKernels(OpRegistry& r) {
  RegisterConvKernels(r);
  RegisterPoolKernels(r);
  RegisterNormalizationKernels(r);
  RegisterGemmKernels(r);
  RegisterSoftmaxKernels(r);
  RegisterReduceKernels(r);
  RegisterBinaryKernels(r);
  RegisterUnaryKernels(r);
  RegisterShapeKernels(r);
  RegisterTransposeKernels(r);
  RegisterConcatSplitKernels(r);
  RegisterGatherSliceKernels(r);
  RegisterMiscKernels(r);
  RegisterResizeKernels(r);
  RegisterLayerNormKernels(r);
}

}  // namespace webnx
