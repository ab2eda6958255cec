// Einsum equations parsed against their operand shapes (kernels/einsum_plan.h).
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/einsum_plan.h"
#include "kernels/nn_common.h"

namespace webnx::einsum {
namespace {

constexpr int kEllipsis = -1;  // in a parsed term, where "..." stands

int LabelOf(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

// "a", "Z", or "... dim 1", for errors.
std::string LabelName(int label) {
  if (label < 26) return std::string(1, static_cast<char>('A' + label));
  if (label < kLetters) return std::string(1, static_cast<char>('a' + label - 26));
  return "... dim " + std::to_string(label - kLetters);
}

// One term's labels in order, kEllipsis where "..." stands (at most once).
Status ParseTerm(const PlanContext& ctx, const std::string& term, std::vector<int>* tokens) {
  bool ellipsis = false;
  for (size_t i = 0; i < term.size();) {
    if (term[i] == '.') {
      if (term.compare(i, 3, "...") != 0 || ellipsis) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "term '" + term + "' has a '.' outside its one ellipsis '...'");
      }
      ellipsis = true;
      tokens->push_back(kEllipsis);
      i += 3;
      continue;
    }
    const int label = LabelOf(term[i]);
    if (label < 0) {
      return ctx.Error(ErrorCode::kMalformedModel, "term '" + term + "' has the character '" +
                                                       std::string(1, term[i]) +
                                                       "', which is not a letter");
    }
    tokens->push_back(label);
    ++i;
  }
  return Status::Ok();
}

// Expands one operand's term over its shape and merges its dims into the label extents: a
// label's dims must agree or be 1 (broadcast), and agree exactly within one operand.
Status ReadOperand(const PlanContext& ctx, int index, const std::vector<int>& tokens,
                   const Shape& shape, int ellipsis_rank, Equation* eq) {
  const int64_t ellipsis_dims = static_cast<int64_t>(shape.size() + 1 - tokens.size());
  std::vector<int> labels;
  for (int token : tokens) {
    if (token != kEllipsis) labels.push_back(token);
    for (int64_t i = 0; token == kEllipsis && i < ellipsis_dims; ++i)
      labels.push_back(static_cast<int>(kLetters + ellipsis_rank - ellipsis_dims + i));
  }
  for (size_t d = 0; d < labels.size(); ++d) {
    const int label = labels[d];
    const size_t first = std::find(labels.begin(), labels.end(), label) - labels.begin();
    int64_t& extent = eq->extents[label];
    const std::string where = "input " + std::to_string(index) + " " + ShapeToString(shape);
    if (first < d && shape[first] != shape[d]) {
      return ctx.Error(
          ErrorCode::kShapeMismatch,
          "label '" + LabelName(label) + "' repeats over dims of different sizes in " + where);
    }
    if (extent >= 0 && extent != shape[d] && extent != 1 && shape[d] != 1) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "label '" + LabelName(label) + "' has size " + std::to_string(shape[d]) +
                           " in " + where + " but " + std::to_string(extent) + " elsewhere");
    }
    if (extent < 0 || extent == 1) extent = shape[d];
  }
  eq->operands.push_back(std::move(labels));
  return Status::Ok();
}

// The output's labels: the right-hand side, or (implicit form) the ellipsis dims then every
// letter that occurs once, in ASCII order.
Status ReadOutput(const PlanContext& ctx, const std::string& equation, size_t arrow,
                  int ellipsis_rank, Equation* eq) {
  std::vector<int> count(eq->extents.size(), 0);
  for (const auto& labels : eq->operands) {
    for (int label : labels) ++count[label];
  }
  if (arrow == std::string::npos) {
    for (int i = 0; i < ellipsis_rank; ++i) eq->output.push_back(kLetters + i);
    for (int label = 0; label < kLetters; ++label) {
      if (count[label] == 1) eq->output.push_back(label);
    }
    return Status::Ok();
  }
  std::vector<int> tokens;
  WEBNX_RETURN_IF_ERROR(ParseTerm(ctx, equation.substr(arrow + 2), &tokens));
  std::vector<bool> seen(eq->extents.size(), false);
  for (int token : tokens) {
    for (int i = 0; token == kEllipsis && i < ellipsis_rank; ++i)
      eq->output.push_back(kLetters + i);
    if (token == kEllipsis) continue;
    if (count[token] == 0 || seen[token]) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "output label '" + LabelName(token) +
                           (seen[token] ? "' repeats" : "' is in no input term"));
    }
    seen[token] = true;
    eq->output.push_back(token);
  }
  return Status::Ok();
}

}  // namespace

Status ParseEquation(const PlanContext& ctx, std::string equation, const std::vector<Shape>& shapes,
                     Equation* eq) {
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  const size_t arrow = equation.find("->");
  if (arrow != std::string::npos && equation.find("->", arrow + 1) != std::string::npos) {
    return ctx.Error(ErrorCode::kMalformedModel, "equation '" + equation + "' has two '->'");
  }
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::vector<int>> terms(1);
  std::string term;
  for (size_t i = 0; i <= lhs.size(); ++i) {
    if (i < lhs.size() && lhs[i] != ',') {
      term += lhs[i];
      continue;
    }
    WEBNX_RETURN_IF_ERROR(ParseTerm(ctx, term, &terms.back()));
    if (i < lhs.size()) terms.emplace_back();
    term.clear();
  }
  if (terms.size() != shapes.size()) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "equation '" + equation + "' has " + std::to_string(terms.size()) +
                         " input terms for " + std::to_string(shapes.size()) + " inputs");
  }
  int ellipsis_rank = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const bool ellipsis = std::count(terms[i].begin(), terms[i].end(), kEllipsis) > 0;
    const size_t letters = terms[i].size() - (ellipsis ? 1 : 0);
    const size_t rank = shapes[i].size();
    if (ellipsis ? rank < letters : rank != letters) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "input " + std::to_string(i) + " " + ShapeToString(shapes[i]) + " has " +
                           (ellipsis ? "fewer dims than the " : "not the ") +
                           std::to_string(letters) + " labels of its term");
    }
    if (ellipsis) ellipsis_rank = std::max(ellipsis_rank, static_cast<int>(rank - letters));
  }
  eq->extents.assign(kLetters + ellipsis_rank, -1);
  for (size_t i = 0; i < terms.size(); ++i) {
    WEBNX_RETURN_IF_ERROR(
        ReadOperand(ctx, static_cast<int>(i), terms[i], shapes[i], ellipsis_rank, eq));
  }
  return ReadOutput(ctx, equation, arrow, ellipsis_rank, eq);
}

}  // namespace webnx::einsum
