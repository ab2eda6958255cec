#include "core/loaders/json_lowering.h"

#include <cstring>

namespace webnx {
namespace jsonl {

Attribute IntsAttribute(std::vector<int64_t> v) {
  Attribute a;
  a.type = Attribute::Type::kInts;
  a.ints = std::move(v);
  return a;
}

Attribute IntAttribute(int64_t v) {
  Attribute a;
  a.type = Attribute::Type::kInt;
  a.i = v;
  return a;
}

Attribute FloatAttribute(float v) {
  Attribute a;
  a.type = Attribute::Type::kFloat;
  a.f = v;
  return a;
}

Status PermuteTensor(const Tensor& in, const std::vector<int64_t>& perm, Tensor* out) {
  const size_t rank = in.shape.size();
  if (perm.size() != rank) {
    return Status(ErrorCode::kInternal, "permutation of the wrong rank");
  }
  Shape shape(rank);
  for (size_t i = 0; i < rank; ++i) shape[i] = in.shape[perm[i]];
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(in.dtype, shape, out));
  const size_t elem = DTypeSize(in.dtype);
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * in.shape[d];
  // Walk the output in order, carrying the matching input offset.
  std::vector<int64_t> index(rank, 0);
  const char* src = static_cast<const char*>(in.data);
  char* dst = static_cast<char*>(out->data);
  const int64_t n = in.numel();
  int64_t offset = 0;
  for (int64_t flat = 0; flat < n; ++flat) {
    std::memcpy(dst + flat * elem, src + offset * elem, elem);
    for (size_t k = rank; k-- > 0;) {
      offset += in_strides[perm[k]];
      if (++index[k] < shape[k]) break;
      offset -= in_strides[perm[k]] * shape[k];
      index[k] = 0;
    }
  }
  return Status::Ok();
}

Lowering::Lowering(Graph* graph, const JsonExternalFiles& files, std::set<std::string> taken)
    : graph_(graph), files_(files), taken_(std::move(taken)) {}

int64_t Lowering::opset() const {
  auto it = graph_->opsets.find("");
  return it == graph_->opsets.end() ? 0 : it->second;
}

const Tensor* Lowering::Constant(const std::string& value) const {
  auto it = graph_->initializers.find(value);
  return it == graph_->initializers.end() ? nullptr : &it->second;
}

std::string Lowering::FreshName(const std::string& hint) {
  std::string name = hint;
  for (int i = 2; taken_.count(name); ++i) name = hint + "_" + std::to_string(i);
  taken_.insert(name);
  return name;
}

std::string Lowering::AddInitializer(const std::string& hint, Tensor t) {
  std::string name = FreshName(hint);
  graph_->initializers[name] = std::move(t);
  return name;
}

std::string Lowering::AddInt64s(const std::string& hint, const std::vector<int64_t>& values) {
  Tensor t;
  // A handful of values: allocation cannot fail short of a broken heap.
  if (!Tensor::Allocate(DType::kInt64, {static_cast<int64_t>(values.size())}, &t).ok()) return "";
  if (!values.empty()) std::memcpy(t.data, values.data(), values.size() * sizeof(int64_t));
  return AddInitializer(hint, std::move(t));
}

std::string Lowering::AddScalarFloat(const std::string& hint, float value) {
  Tensor t;
  if (!Tensor::Allocate(DType::kFloat32, {}, &t).ok()) return "";
  *t.ptr<float>() = value;
  return AddInitializer(hint, std::move(t));
}

void Lowering::Emit(Node node) {
  for (const auto& out : node.outputs) taken_.insert(out);
  graph_->nodes.push_back(std::move(node));
}

void Lowering::Emit(const std::string& op, const std::string& label,
                    std::vector<std::string> inputs, std::vector<std::string> outputs,
                    std::map<std::string, Attribute> attrs) {
  Node node;
  node.name = label;
  node.op_type = op;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  node.attrs = std::move(attrs);
  Emit(std::move(node));
}

std::string Lowering::Permuted(const std::string& value, const std::vector<int64_t>& perm,
                               const std::string& label) {
  if (const Tensor* c = Constant(value)) {
    Tensor t;
    if (c->rank() == static_cast<int64_t>(perm.size()) && PermuteTensor(*c, perm, &t).ok()) {
      return AddInitializer(value + "#permuted", std::move(t));
    }
  }
  std::string out = FreshName(value + "#permuted");
  Emit("Transpose", label, {value}, {out}, {{"perm", IntsAttribute(perm)}});
  return out;
}

std::string Lowering::ToNchw(const std::string& nhwc) {
  if (const std::string* twin = TwinOf(nhwc)) return *twin;
  std::string nchw = FreshName(nhwc + "#nchw");
  Emit("Transpose", nhwc + "#to_nchw", {nhwc}, {nchw}, {{"perm", IntsAttribute({0, 3, 1, 2})}});
  twins_[nhwc] = nchw;
  return nchw;
}

void Lowering::FromNchw(const std::string& nchw, const std::string& nhwc,
                        const std::string& label) {
  Emit("Transpose", label + "#to_nhwc", {nchw}, {nhwc}, {{"perm", IntsAttribute({0, 2, 3, 1})}});
  twins_[nhwc] = nchw;
}

const std::string* Lowering::TwinOf(const std::string& nhwc) const {
  auto it = twins_.find(nhwc);
  return it == twins_.end() ? nullptr : &it->second;
}

}  // namespace jsonl
}  // namespace webnx
